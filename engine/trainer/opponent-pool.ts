import { join } from 'node:path';
import type { z } from 'zod';
import { fail } from '../../core/errors.ts';
import type { Game } from '../../core/game/define-game.ts';
import type { RotationStep } from '../../core/game/rotations.ts';
import { deriveSeed, Rng } from '../../core/rng.ts';
import { pfspDraws, pfspOpponentProbabilities } from '../../core/tournament/formats.ts';
import { recordContest, type PayoffTable } from '../../core/tournament/payoff.ts';
import { loadCheckpoint } from '../../native/io/checkpoint.ts';
import { cloneWeights } from '../../native/model/weights.ts';
import type { PlayedMatch } from '../match/played-match.ts';
import type { PolicyPool } from '../policies/policy-pool.ts';
import { saveBestPolicy } from './run-checkpoint.ts';
import type { OpponentPoolSchema, TrainConfig } from './train-config.ts';

export type OpponentPoolSettings = z.output<typeof OpponentPoolSchema>;

/** The pool as the trainer state keeps it: the snapshots in the order they joined, and the learner's results against each. */
export interface OpponentPoolState {
  opponents: string[];
  payoff: PayoffTable;
}

/** A run directory's snapshots, each a model directory (`snapshots/player@10`). */
export const SNAPSHOTS_DIR = 'snapshots';
/** Seeds a step's opponent draw (match-seeds.ts uses streams 1-6 under (seed, step)). */
const DRAW_STREAM = 7;

export const snapshotName = (learner: string, step: number) => `${learner}@${step}`;

/** The one policy a self-play game seats everywhere and trains; an opponent pool needs such a game, in-process. */
export function poolLearner(game: Game, config: TrainConfig): string {
  const { seats, trains } = game.rotation.at(0);
  const seated = new Set(Object.values(seats));
  const learner = [...seated][0];
  if (game.rotation.period !== 1 || game.rotation.offset !== 0 || seated.size !== 1 || trains.length !== 1 || trains[0] !== learner || game.roles.length < 2) {
    fail('CONFIG_INVALID', `opponentPool: game "${game.id}" does not seat one policy in every seat and train it (self-play); an opponent pool needs self-play`, { field: 'opponentPool', game: game.id });
  }
  if (config.rolloutServers || config.trainerServer) fail('CONFIG_INVALID', 'opponentPool: runs in-process only (no rolloutServers or trainerServer)', { field: 'opponentPool' });
  if (config.policies[learner]?.adapter) fail('CONFIG_INVALID', `opponentPool: policy "${learner}" trains a LoRA adapter; the pool holds full copies only`, { field: 'opponentPool' });
  return learner;
}

/** The step's seats: the learner in one seat (the first at step 0, the next one each step after), the drawn opponent in the rest. */
export function poolSeats(game: Game, learner: string, opponent: string, step: number): RotationStep {
  const mine = game.roles[step % game.roles.length];
  return { seats: Object.fromEntries(game.roles.map((role) => [role, role === mine ? learner : opponent])), trains: [learner] };
}

/** The opponent of `step`, drawn by PFSP over the learner's results so far, from a stream of (seed, step): a resumed run draws the same. */
export function drawOpponent(pool: OpponentPoolState, settings: OpponentPoolSettings, learner: string, seed: number, step: number): string {
  return pfspDraws(learner, pool.opponents, { ...settings, opponents: 1 }, pool.payoff, new Rng(deriveSeed(seed, step, DRAW_STREAM)))[0];
}

/** PFSP's probability of each opponent of the pool, in the pool's order. */
export function opponentProbabilities(pool: OpponentPoolState, settings: OpponentPoolSettings, learner: string): number[] {
  return pfspOpponentProbabilities(learner, pool.opponents, settings, pool.payoff);
}

/** Adds the learner's results in the step's matches against the opponent (by their outcomes: a win, a draw or a loss). */
export function recordPoolResults(pool: OpponentPoolState, matches: readonly PlayedMatch[], seats: Readonly<Record<string, string>>, learner: string): void {
  const mine = Object.keys(seats).find((role) => seats[role] === learner)!;
  for (const match of matches) {
    const outcome = match.rewards.outcome as Readonly<Record<string, number>>;
    for (const [role, policy] of Object.entries(seats)) {
      if (policy === learner) continue;
      recordContest(pool.payoff, [
        { members: [{ entrant: learner, weight: 1 }], score: outcome[mine] },
        { members: [{ entrant: policy, weight: 1 }], score: outcome[role] },
      ]);
    }
  }
}

/** A fresh pool: the learner's starting weights, `<learner>@0`. */
export function startPool(policies: PolicyPool, learner: string): OpponentPoolState {
  const name = snapshotName(learner, 0);
  policies.addFrozen(name, learner, policies.initial(learner).weights);
  return { opponents: [name], payoff: {} };
}

/** A resumed run's pool: `@0` from the learner's start, every later snapshot from its directory. */
export async function reopenPool(policies: PolicyPool, learner: string, pool: OpponentPoolState, out: string): Promise<void> {
  for (const name of pool.opponents) {
    const weights = name === snapshotName(learner, 0) ? policies.initial(learner).weights : (await loadCheckpoint(join(out, SNAPSHOTS_DIR, name))).weights;
    policies.addFrozen(name, learner, weights);
  }
}

/** After step `step`: when a snapshot is due, the learner's weights are saved (before the checkpoint that lists them) and join the pool. */
export async function takeSnapshot(policies: PolicyPool, learner: string, pool: OpponentPoolState, settings: OpponentPoolSettings, step: number, out: string): Promise<void> {
  if (step % settings.snapshotEvery !== 0) return;
  const name = snapshotName(learner, step);
  if (pool.opponents.includes(name)) return;
  const live = policies.policy(learner);
  const weights = cloneWeights(live.weights);
  await saveBestPolicy(join(out, SNAPSHOTS_DIR, name), { config: live.config, weights }, policies.tokenizer.json);
  policies.addFrozen(name, learner, weights);
  pool.opponents.push(name);
}
