import { fail } from '../errors.ts';
import type { Rng } from '../rng.ts';

/**
 * Prioritized fictitious self-play (AlphaStar, Vinyals et al. 2019, Methods "Prioritized fictitious self-play"): a
 * learner picks opponent B with probability f(x_B) / Σ_C f(x_C), x_B the learner's win rate against B.
 * `hard`: f(x) = (1 − x)^p (p = 2 by default), the opponents it loses to; `variance`: f(x) = x(1 − x), the ones it is
 * level with; `uniform`: plain fictitious self-play.
 */
export type PfspWeighting = 'hard' | 'variance' | 'uniform';

export function pfspWeight(weighting: PfspWeighting, winRate: number, hardExponent = 2): number {
  if (!(winRate >= 0 && winRate <= 1)) fail('DATA_INVALID', `PFSP: a win rate must lie in [0, 1], got ${winRate}`);
  switch (weighting) {
    case 'hard':
      return (1 - winRate) ** hardExponent;
    case 'variance':
      return winRate * (1 - winRate);
    case 'uniform':
      return 1;
  }
}

/** The sampling distribution over opponents; uniform when every weight is 0 (a learner that beats everyone under `hard`). */
export function pfspProbabilities(weighting: PfspWeighting, winRates: readonly number[], hardExponent = 2): number[] {
  if (winRates.length === 0) fail('DATA_INVALID', 'PFSP: no opponent to choose from');
  const weights = winRates.map((x) => pfspWeight(weighting, x, hardExponent));
  const total = weights.reduce((a, b) => a + b, 0);
  return total > 0 ? weights.map((w) => w / total) : weights.map(() => 1 / weights.length);
}

/**
 * A win rate with `prior` games split evenly added (ours: one game, so an opponent never met counts as x = 0.5 and
 * one result does not drive x to 0 or 1). Draws count half a win.
 */
export function smoothedWinRate(wins: number, games: number, prior = 1): number {
  if (!(games >= 0 && wins >= 0 && wins <= games)) fail('DATA_INVALID', `PFSP: ${wins} wins in ${games} games is not a record`);
  return (wins + prior / 2) / (games + prior);
}

/** One draw from a discrete distribution by inverse CDF. */
export function sampleIndex(rng: Rng, probabilities: readonly number[]): number {
  const u = rng.next();
  let cumulative = 0;
  for (const [i, p] of probabilities.entries()) {
    cumulative += p;
    if (u < cumulative) return i;
  }
  return probabilities.length - 1;
}
