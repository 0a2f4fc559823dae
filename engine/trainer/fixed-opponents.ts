import { fail } from '../../core/errors.ts';
import type { Game } from '../../core/game/define-game.ts';
import { SCRIPTED_PREFIX } from '../../core/protocols/world.ts';
import type { Problem, Task } from '../../core/tasks/task.ts';
import type { Arena } from '../match/arena.ts';
import { fixedOpponentSeeds } from '../match/match-seeds.ts';
import { playMatches } from '../match/play-matches.ts';

/** The opponent name that stands for the learning policy's own start (its base model, frozen). */
export const BASE_OPPONENT = 'base';

/** How one trained policy did against one fixed opponent: rates over its matches, the policy in each of its seats in turn. */
export interface FixedOpponentResult {
  readonly matches: number;
  readonly win: number;
  readonly draw: number;
  readonly loss: number;
  readonly draw_or_win: number;
  /** Wins and half the draws: what best/ is chosen by (the mean over opponents). */
  readonly score: number;
  readonly forfeit: number;
  readonly payoff: number;
}

/** An evaluation's results by series: the opponent's name, or `<policy> vs <opponent>` where several policies train. */
export type FixedOpponentResults = Readonly<Record<string, FixedOpponentResult>>;

/** A collapse: the draw-or-win rate against a fixed opponent fell by more than the threshold below its best so far. */
export interface CollapseAlarm {
  readonly series: string;
  readonly best: number;
  readonly bestStep: number;
  readonly now: number;
}

/** The fixed opponents of a run: the game's reference opponents and the base, or the ones the config names (checked). */
export function fixedOpponentsOf(game: Game, named: readonly string[] | undefined): string[] {
  const protocol = game.protocol;
  if (protocol.family !== 'world') return fail('CONFIG_INVALID', `evalEvery: game "${game.id}" is not a world game; it has no fixed opponents to play while training (validateEvery measures it)`, { field: 'evalEvery', game: game.id });
  const known = [...Object.keys(protocol.scripted ?? {}), BASE_OPPONENT];
  for (const name of named ?? []) if (!known.includes(name)) fail('CONFIG_INVALID', `evalOpponents: game "${game.id}" has no fixed opponent "${name}" (it has: ${known.join(', ')})`, { field: 'evalOpponents', opponent: name });
  return [...(named ?? known)];
}

/** The frozen copy of a policy's start that plays the `base` opponent's seats. */
export const baseCopyOf = (policy: string) => `${policy}@base`;

/**
 * Each trained policy against each fixed opponent (a reference opponent by name, or `base`: its own start, frozen), on
 * the task's validation deals (best/ is chosen by them, so `ludus eval`'s test deals stay unseen), the policy in each
 * of its seats for an equal share of `matches`, with seeds that are the same at every evaluation, so the results of
 * two steps are paired deal by deal.
 */
export async function playFixedOpponents(arena: Arena<string>, game: Game, task: Task, trained: readonly string[], opponents: readonly string[], matches: number, runSeed: number): Promise<FixedOpponentResults> {
  const seats = game.rotation.at(0).seats;
  const results: Record<string, FixedOpponentResult> = {};
  for (const policy of trained) {
    const mine = game.roles.filter((role) => seats[role] === policy);
    const perSeat = Math.max(1, Math.ceil(matches / Math.max(1, mine.length)));
    const deals = task.problems('validation', perSeat, runSeed) as Problem[];
    for (const [o, opponent] of opponents.entries()) {
      const outcomes: { payoff: number; labels: Readonly<Record<string, number>> }[] = [];
      for (const [s, role] of mine.entries()) {
        const against = opponent === BASE_OPPONENT ? baseCopyOf(policy) : `${SCRIPTED_PREFIX}${opponent}`;
        const seating = Object.fromEntries(game.roles.map((r) => [r, r === role ? policy : against]));
        const played = await playMatches(arena, { problems: deals, copies: 1, seats: seating, seeds: fixedOpponentSeeds(runSeed, o, s), label: `eval/${opponent}/${role}` });
        for (const match of played) outcomes.push({ payoff: (match.rewards.outcome as Record<string, number>)[role], labels: (match.rewards.labels?.[role] ?? {}) as Record<string, number> });
      }
      const mean = (of: (o: (typeof outcomes)[number]) => number) => outcomes.reduce((sum, o) => sum + of(o), 0) / outcomes.length;
      const win = mean((o) => o.labels.win ?? 0);
      const draw = mean((o) => o.labels.draw ?? 0);
      const loss = mean((o) => o.labels.loss ?? 0);
      results[trained.length === 1 ? opponent : `${policy} vs ${opponent}`] = { matches: outcomes.length, win, draw, loss, draw_or_win: 1 - loss, score: win + draw / 2, forfeit: mean((o) => o.labels.forfeit ?? 0), payoff: mean((o) => o.payoff) };
    }
  }
  return results;
}

/** The mean score over the series: what best/ is chosen by. */
export function meanScore(results: FixedOpponentResults): number {
  const scores = Object.values(results).map((r) => r.score);
  return scores.reduce((a, b) => a + b, 0) / Math.max(1, scores.length);
}

/**
 * The collapse alarm (ours): a series whose draw-or-win rate now is more than `drop` below its best so far. Updates
 * `best` (per series: the best rate and its step) with this evaluation.
 */
export function collapseAlarms(results: FixedOpponentResults, best: Record<string, { rate: number; step: number }>, step: number, drop: number): CollapseAlarm[] {
  const alarms: CollapseAlarm[] = [];
  for (const [series, result] of Object.entries(results)) {
    const known = best[series];
    if (known && result.draw_or_win < known.rate - drop) alarms.push({ series, best: known.rate, bestStep: known.step, now: result.draw_or_win });
    if (!known || result.draw_or_win > known.rate) best[series] = { rate: result.draw_or_win, step };
  }
  return alarms;
}

/** A collapse as the run prints it. */
export function collapseWarning(step: number, alarm: CollapseAlarm): string {
  return `WARNING step ${step}: collapse against ${alarm.series}: draw-or-win ${(100 * alarm.now).toFixed(1)}%, down from its best ${(100 * alarm.best).toFixed(1)}% at step ${alarm.bestStep}\n`;
}
