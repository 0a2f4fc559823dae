import { cp } from 'node:fs/promises';
import type { AdvantageEstimator } from '../../core/advantages/estimator.ts';
import { fail } from '../../core/errors.ts';
import { learningRate } from '../../native/train/lr-schedule.ts';
import { learnPolicy } from '../../engine/trainer/learn-policy.ts';
import { policyMetrics, type PolicyMetrics } from '../../engine/trainer/metrics-line.ts';
import { createPolicyLearner, roleEstimators } from '../../engine/trainer/policy-learner.ts';
import type { LearnerSettings } from '../../engine/trainer/policy-plan.ts';
import { ReferenceScorers } from '../../engine/trainer/reference-scorers.ts';
import { writePolicyCheckpoint } from '../../engine/trainer/run-checkpoint.ts';
import { OPTIMIZER_FILE, readOptimizer } from '../../engine/trainer/training-checkpoint.ts';
import type { MatchAdvantage } from '../../engine/trainer/transcript-line.ts';
import type { PlayedLineup } from './contests.ts';
import type { EntrantCache } from './entrant-cache.ts';
import type { TournamentGame } from './entrants.ts';
import type { LeagueState } from './league-state.ts';

/** One optimizer step of one entrant: from which lineup's matches, against whom, and how it went. */
export interface UpdateRecord {
  readonly step: number;
  readonly update: number;
  readonly entrant: string;
  readonly game: string;
  readonly seats: Readonly<Record<string, string>>;
  /** The other entrants of the matches it learned from, and the pairings' opponents it was rated against. */
  readonly opponents: readonly string[];
  readonly roles: readonly string[];
  readonly metrics: PolicyMetrics;
}

export interface RoundTraining {
  readonly cache: EntrantCache;
  readonly games: readonly TournamentGame[];
  readonly advantage: AdvantageEstimator;
  readonly settings: (entrant: string) => LearnerSettings;
  readonly temperature: number;
  readonly groupSize: number;
  readonly rounds: number;
  readonly padToken: number;
  readonly maxConsecutiveNonFinite: number;
  readonly threads?: number;
  /** Where an entrant's saved optimizer is, from the last round (absent before its first update). */
  readonly savedDir: (entrant: string) => string | undefined;
  readonly tokenizerJson: unknown;
}

/**
 * Between rounds: every trainable entrant learns from the matches of this round in which it sat in a trainable role,
 * one clipped policy-gradient step per lineup (the trainer's per-policy update, with the entrant's own AdamW), then
 * its weights and moments are written to `into/<entrant>`. Entrants are trained one at a time, so one learner is
 * in memory at once. Returns the updates and, per lineup, the advantages its matches got.
 */
export async function trainRound(
  training: RoundTraining,
  state: LeagueState,
  played: readonly PlayedLineup[],
  sinks: {
    /** Where an entrant's new weights and moments go. */
    readonly into: (entrant: string) => string;
    /** Called once they are written (later lineups load the entrant from there). */
    readonly trained?: (entrant: string) => void;
    readonly update?: (record: UpdateRecord) => void;
  },
): Promise<{ updates: UpdateRecord[]; advantages: Map<PlayedLineup, Record<string, MatchAdvantage>[]> }> {
  const updates: UpdateRecord[] = [];
  const advantages = new Map<PlayedLineup, Record<string, MatchAdvantage>[]>();
  const scorers = new ReferenceScorers(training.threads);
  const estimators = new Map(training.games.map((g) => [g.id, roleEstimators(g.game, training.advantage)]));
  try {
    for (const entrant of state.pool.filter((e) => e.trainable)) {
      const mine = played.filter(({ lineup }) => trainsIn(training, lineup.game, lineup.seats).includes(entrant.name));
      const target = sinks.into(entrant.name);
      const saved = training.savedDir(entrant.name);
      if (mine.length === 0) {
        if (saved) await cp(saved, target, { recursive: true });
        continue;
      }
      await training.cache.use([entrant.name]);
      const policy = training.cache.policy(entrant.name);
      const settings = training.settings(entrant.name);
      const learner = await createPolicyLearner(policy, settings, {
        temperature: training.temperature,
        threads: training.threads,
        // The learner's graph takes an entropy bonus if any role of any game has one (Tango); each step sets its own.
        entropyCoef: Math.max(0, ...training.games.flatMap(({ game }) => Object.values(game.losses).map((terms) => terms?.entropy?.coef ?? 0))),
        maxConsecutiveNonFinite: training.maxConsecutiveNonFinite,
        ...(saved ? { optimizer: await readOptimizer(`${saved}/${OPTIMIZER_FILE}`) } : {}),
        ...(state.nonFinite[entrant.name] ? { nonFinite: state.nonFinite[entrant.name] } : {}),
      });
      try {
        const lr = learningRate(settings.schedule, state.round, training.rounds);
        for (const lineup of mine) {
          const { game } = training.games.find((g) => g.id === lineup.lineup.game)!;
          const seats = lineup.lineup.seats;
          const start = Object.values(game.losses).some((terms) => terms?.kl?.toward === 'initial') ? [`${entrant.name}@start`] : [];
          await training.cache.use([entrant.name, ...new Set(Object.values(seats)), ...start]);
          const estimatorStates = ((state.estimators[entrant.name] ??= {})[game.id] ??= {});
          const learning = await learnPolicy(
            {
              game,
              seats,
              groupSize: training.groupSize,
              step: state.round,
              totalSteps: training.rounds,
              padToken: training.padToken,
              reference: (name, toward) => (toward === 'initial' ? initialOf(training.cache, name) : training.cache.policy(seats[toward])),
              score: (reference, trajectories) => scorers.score(reference, training.cache.version(reference.name), trajectories, training.temperature),
              estimator: estimators.get(game.id)!,
              estimatorStates,
            },
            learner,
            lineup.matches,
            lr,
          );
          if (learning.stats) training.cache.bump(entrant.name);
          const byMatch = advantages.get(lineup) ?? lineup.matches.map((): Record<string, MatchAdvantage> => ({}));
          for (const [role, result] of Object.entries(learning.roles)) result.advantages.forEach(({ advantage, dropped }, i) => (byMatch[i][role] = { policy: entrant.name, advantage, dropped }));
          advantages.set(lineup, byMatch);
          state.updates += 1;
          const record: UpdateRecord = {
            step: state.round + 1,
            update: state.updates,
            entrant: entrant.name,
            game: game.id,
            seats,
            opponents: [...new Set([...Object.values(seats).filter((name) => name !== entrant.name), ...lineup.lineup.opponents])].sort(),
            roles: Object.keys(learning.roles),
            metrics: policyMetrics(learning, lr),
          };
          updates.push(record);
          sinks.update?.(record);
        }
        state.nonFinite[entrant.name] = { consecutive: learner.guard.consecutive, skipped: learner.guard.skipped };
        // An adapter entrant saves its adapter alone (PEFT's layout, its base recorded), and the adapter's moments.
        const checkpoint = { config: policy.config, weights: learner.learner.weights, optimizer: learner.learner.optimizerState(), ...(entrant.adapter ? { baseModel: entrant.adapter.base } : {}) };
        await writePolicyCheckpoint(target, checkpoint, training.tokenizerJson);
        sinks.trained?.(entrant.name);
      } finally {
        await learner.learner.release();
      }
    }
  } finally {
    await scorers.release();
  }
  return { updates, advantages };
}

/** The entrants a lineup's matches train: those seated in a trainable role of its game. */
function trainsIn(training: RoundTraining, gameId: string, seats: Readonly<Record<string, string>>): string[] {
  const { game } = training.games.find((g) => g.id === gameId) ?? fail('CONFIG_INVALID', `no game "${gameId}" in this tournament`);
  return [...new Set((game.trainable as readonly string[]).map((role) => seats[role]))];
}

/** A trainable entrant's starting weights, for a KL toward its own start: loaded under `<name>@start`. */
function initialOf(cache: EntrantCache, name: string) {
  return cache.policy(`${name}@start`);
}

