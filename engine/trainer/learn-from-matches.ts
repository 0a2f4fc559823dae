import type { AdvantageEstimator } from '../../core/advantages/estimator.ts';
import { batchLossMasks } from '../../core/trajectory/loss-mask.ts';
import type { Learner, StepStats } from '../../native/train/learner.ts';
import type { Scorer } from '../../native/runtime/scorer.ts';
import { juniorLogprobs } from './junior-logprobs.ts';
import { meanK3 } from './k3.ts';
import type { NonFiniteGuard } from './non-finite-guard.ts';
import type { PlayedMatch } from '../match/played-match.ts';
import { policyGradientBatch } from './policy-gradient-batch.ts';
import type { RlGame } from '../../core/game/rl-game.ts';

export interface LearnSetup<Role extends string> {
  readonly game: RlGame<Role>;
  readonly learner: Learner;
  readonly guard: NonFiniteGuard;
  readonly estimator: AdvantageEstimator;
  readonly groupSize: number;
  readonly temperature: number;
  readonly padToken: number;
  /** The frozen junior as a teacher-forced scorer, where the game regularizes toward it (KL-Reg). */
  readonly juniorScorer?: Scorer;
}

export interface Learned {
  /** Undefined when the update was non-finite and skipped. */
  readonly stats: StepStats | undefined;
  readonly rewardMean: number;
  readonly seniorShare: number;
  readonly klToJunior: number | null;
  readonly zeroVarianceGroups: number;
}

/**
 * One optimizer step from a step's matches (problem-major groups of G): fail-closed masks on the trainable
 * authors' tokens, group advantages of the trainable role's outcome, the junior's logprobs where KL-Reg needs
 * them, and a clipped policy-gradient update.
 */
export async function learnFromMatches<Role extends string>(setup: LearnSetup<Role>, matches: readonly PlayedMatch[], lr: number): Promise<Learned> {
  const { game } = setup;
  const trajectories = matches.map((match) => match.trajectory);
  const authors = trajectories[0].roles;
  const trainableAuthors = authors.flatMap((role, index) => ((game.trainable as readonly string[]).includes(role) ? [index] : []));
  const masked = batchLossMasks(trajectories, trainableAuthors, { shareBand: game.shareBand });
  const masks = masked.masks.map((m) => m.mask);
  const rewardRole = authors[trainableAuthors[0]];
  const rewards = trajectories.map((trajectory) => trajectory.outcome[rewardRole]);
  const groups = Array.from({ length: rewards.length / setup.groupSize }, (_, g) => rewards.slice(g * setup.groupSize, (g + 1) * setup.groupSize));
  const { advantages, zeroVarianceGroups } = setup.estimator(groups);

  const policyLogprobs = trajectories.map((trajectory) => trajectory.logprobs);
  const refLogprobs = setup.juniorScorer ? await juniorLogprobs(setup.juniorScorer, trajectories, setup.temperature) : undefined;
  const juniorIndex = authors.findIndex((role) => !(game.trainable as readonly string[]).includes(role));
  const partnerJunior = juniorIndex >= 0 && trajectories[0].partnerLogprobs ? trajectories.map((t) => t.partnerLogprobs![juniorIndex]) : undefined;
  const juniorView = refLogprobs ?? partnerJunior;

  // λ_jun: the senior also imitates the tokens the frozen roles wrote (the original tandem objective; the paper sets 0).
  const imitationMasks = game.juniorImitation > 0 ? trajectories.map((t) => t.authors.map((author) => (trainableAuthors.includes(author) ? 0 : 1))) : undefined;
  const batch = policyGradientBatch(
    { trajectories, masks, advantages: advantages.flat(), ...(refLogprobs ? { refLogprobs } : {}), ...(imitationMasks ? { imitationMasks } : {}) },
    setup.padToken,
  );
  const stats = await setup.guard.run(() => setup.learner.step(batch, { lr }));
  return {
    stats,
    rewardMean: mean(rewards),
    seniorShare: mean(masked.masks.map((m) => m.shares[0].share)),
    klToJunior: juniorView ? meanK3(policyLogprobs, juniorView, masks) : null,
    zeroVarianceGroups,
  };
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}
