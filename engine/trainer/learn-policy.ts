import type { AdvantageEstimator } from '../../core/advantages/estimator.ts';
import { fail, present } from '../../core/errors.ts';
import type { AnyGame } from '../../core/catalog.ts';
import type { Game } from '../../core/game/define-game.ts';
import { distinctSteps, type RotationStep } from '../../core/game/rotations.ts';
import { ANY_SHARE } from '../../core/protocols/co-decoding.ts';
import { batchLossMasks } from '../../core/trajectory/loss-mask.ts';
import type { Trajectory } from '../../core/trajectory/trajectory.ts';
import type { Policy } from '../../native/runtime/policy.ts';
import type { StepStats } from '../../native/train/learner.ts';
import type { PlayedMatch } from '../match/played-match.ts';
import { meanK3 } from './k3.ts';
import type { NonFiniteGuard } from './non-finite-guard.ts';
import { policyGradientBatch } from './policy-gradient-batch.ts';
import { groupsOf, perTurn, roleRollouts, trajectoryOf } from './role-rollouts.ts';
import type { TrainingBackend } from './training-backend.ts';

/** A trainable policy's learning machinery. */
export interface PolicyLearner {
  readonly name: string;
  readonly learner: TrainingBackend;
  readonly guard: NonFiniteGuard;
}

/** What one step of learning needs besides the policy: the game, the step's seats, references and estimators. */
export interface LearnContext {
  readonly game: AnyGame;
  readonly seats: RotationStep['seats'];
  readonly groupSize: number;
  readonly step: number;
  readonly totalSteps: number;
  readonly padToken: number;
  /** The policy a KL term or metric compares against: the seated policy of a role, or a policy's own start. */
  readonly reference: (policy: string, toward: string) => Policy;
  /** Teacher-forced log-probabilities of every response token under `policy`, at the sampling temperature. */
  readonly score: (policy: Policy, trajectories: readonly Trajectory[]) => Promise<number[][]>;
  readonly estimator: (role: string) => AdvantageEstimator;
  /** Each role's estimator state, read before and written after the step (checkpointed with the run). */
  readonly estimatorStates: Record<string, unknown>;
}

/** How a trained role did at a step. */
export interface RoleLearning {
  readonly zeroVarianceGroups: number;
  readonly dropped: number;
  /** Mean share of its co-decoded turns' tokens the role wrote; absent when it writes its turns alone. */
  readonly share?: number;
  /** Per match (in order): the mean advantage over the role's tokens, and whether the rollout was dropped. */
  readonly advantages: readonly { readonly advantage: number; readonly dropped: boolean }[];
  readonly metrics: Readonly<Record<string, number>>;
}

export interface PolicyLearning {
  /** Undefined when the update was non-finite and skipped, or when no token was left to train on. */
  readonly stats: StepStats | undefined;
  readonly skippedNonFinite: boolean;
  /** KL toward each compared policy, `kl_to_<role>` (or `kl_to_initial`), over the trained tokens. */
  readonly kl: Readonly<Record<string, number>>;
  readonly roles: Readonly<Record<string, RoleLearning>>;
}

interface Rows {
  trajectories: Trajectory[];
  masks: number[][];
  advantages: (number | readonly number[])[];
  refLogprobs: number[][] | undefined;
  imitationMasks: number[][] | undefined;
}

/**
 * One optimizer step of one policy from a step's matches: for every trainable role it sat in, fail-closed masks on
 * that role's tokens, group advantages from the role's estimator (the run's, adapted by the game), the reference's
 * log-probabilities where a KL term needs them, then one clipped policy-gradient update over all its rows.
 */
export async function learnPolicy(context: LearnContext, policy: PolicyLearner, matches: readonly PlayedMatch[], lr: number): Promise<PolicyLearning> {
  const { game, seats } = context;
  const roles = game.roles.filter((role) => seats[role] === policy.name && game.trainable.includes(role));
  const terms = roles.map((role) => game.losses[role] ?? {});
  const klBeta = agreed(policy.name, roles, terms.map((t) => t.kl?.beta ?? 0), 'KL β', 0);
  const imitationWeight = agreed(policy.name, roles, terms.map((t) => t.imitate?.weight ?? 0), 'imitation weight', 0);
  const entropyCoef = agreed(policy.name, roles, terms.map((t) => t.entropy?.coef ?? 0), 'entropy coefficient', 0);
  // One learner graph: its roles' KL terms must all be k3 or all exact (a mix would leave k3 rows without references).
  const exactKl = agreed(policy.name, roles, terms.flatMap((t) => (t.kl ? [t.kl.estimator ?? 'k3'] : [])), 'KL estimator', 'k3') === 'exact';
  // The exact KL runs the reference inside the learner's graph: no reference log-probabilities to gather.
  const rows: Rows = { trajectories: [], masks: [], advantages: [], refLogprobs: klBeta > 0 && !exactKl ? [] : undefined, imitationMasks: imitationWeight > 0 ? [] : undefined };
  const kl: Record<string, number> = {};
  const learned: Record<string, RoleLearning> = {};
  for (const [r, role] of roles.entries()) {
    learned[role] = await roleRows(context, policy.name, role, terms[r], matches, rows, kl);
  }
  const trained = rows.masks.some((mask) => mask.some((m) => m !== 0));
  if (!trained) return { stats: undefined, skippedNonFinite: false, kl, roles: learned };
  const batch = policyGradientBatch(
    {
      trajectories: rows.trajectories,
      masks: rows.masks,
      advantages: rows.advantages,
      ...(rows.refLogprobs ? { refLogprobs: rows.refLogprobs } : {}),
      ...(rows.imitationMasks ? { imitationMasks: rows.imitationMasks } : {}),
    },
    context.padToken,
  );
  const stats = await policy.guard.run(() => policy.learner.step(batch, { lr, klBeta, imitationWeight, entropyCoef }));
  // The exact KL is the learner's own reduction over the trained tokens (before this step's update, as k3's is).
  for (const t of terms) if (t.kl?.estimator === 'exact' && stats) kl[`kl_to_${t.kl.toward}`] = stats.klMean;
  return { stats, skippedNonFinite: stats === undefined, kl, roles: learned };
}

/** Appends one role's rows to `rows`; returns how the role did. */
async function roleRows(
  context: LearnContext,
  policyName: string,
  role: string,
  terms: NonNullable<Game['losses'][string]>,
  matches: readonly PlayedMatch[],
  rows: Rows,
  kl: Record<string, number>,
): Promise<RoleLearning> {
  const { game } = context;
  const rollouts = roleRollouts(matches, role);
  const estimator = context.estimator(role);
  const state = role in context.estimatorStates ? context.estimatorStates[role] : estimator.initialState();
  const estimate = estimator.estimate(
    groupsOf(
      rollouts.map((rollout) => rollout.rewards),
      context.groupSize,
    ),
    { role, step: context.step, totalSteps: context.totalSteps },
    state,
  );
  context.estimatorStates[role] = estimate.state;
  const { result } = estimate;

  const trajectories: Trajectory[] = [];
  const advantages: (number | readonly number[])[] = [];
  const dropped: boolean[] = [];
  const perMatch = rollouts.map((rollout, i) => {
    const g = Math.floor(i / context.groupSize);
    const k = i % context.groupSize;
    const advantage = result.advantages[g][k];
    const isDropped = result.dropped?.[g]?.[k] ?? false;
    const parts = typeof advantage === 'number' ? rollout.turns.map(() => advantage) : perTurn(rollout, advantage);
    rollout.turns.forEach((turn, t) => {
      trajectories.push(trajectoryOf(rollout.match, turn));
      advantages.push(parts[t]);
      dropped.push(isDropped);
    });
    return { advantage: typeof advantage === 'number' ? advantage : mean(advantage), dropped: isDropped };
  });
  if (trajectories.length === 0) {
    // In a world game a seat can go a whole step without a turn (the other seat forfeited every match at its first
    // move): nothing of this role to train on this step, said in its metrics (`turns` 0). Elsewhere a trainable role
    // that never wrote is a broken protocol, and fails closed.
    if (game.protocol.family === 'world') return { zeroVarianceGroups: result.zeroVarianceGroups, dropped: 0, advantages: perMatch, metrics: { ...(result.metrics ?? {}), turns: 0 } };
    fail('MASK_EMPTY', `policy "${policyName}" trains role "${role}", which took no turn in any of the step's ${matches.length} matches`, { policy: policyName, role });
  }

  const author = trajectories[0].roles.indexOf(role);
  const shareBand = game.protocol.family === 'co-decoding' ? game.protocol.shareBand : ANY_SHARE;
  const masked = batchLossMasks(trajectories, [author], { shareBand });
  const masks = masked.masks.map((m, i) => (dropped[i] ? m.mask.map(() => 0) : m.mask));

  const references = new Map<string, number[][]>();
  if (terms.kl?.estimator === 'exact') {
    // Scored inside the learner's graph; the metric comes from its step (see learnPolicy).
  } else if (terms.kl) {
    const reference = context.reference(policyName, terms.kl.toward);
    const logprobs = await context.score(reference, trajectories);
    references.set(terms.kl.toward, logprobs);
    present(rows.refLogprobs, 'the rows of reference log-probabilities a KL term needs').push(...logprobs);
  } else if (trajectories[0].partnerLogprobs) {
    // Co-decoding computes every author's log-probability of every token: the KL to a partner comes for free.
    const partner = trajectories[0].roles.findIndex((other) => other !== role);
    if (partner >= 0) references.set(trajectories[0].roles[partner], trajectories.map((t) => [...present(t.partnerLogprobs, "a co-decoded trajectory's partner log-probabilities")[partner]]));
  }
  for (const [toward, logprobs] of references) {
    kl[`kl_to_${toward}`] = meanK3(
      trajectories.map((t) => t.logprobs),
      logprobs,
      masks,
    );
  }
  if (terms.imitate) {
    const imitated = trajectories[0].roles.indexOf(terms.imitate.role);
    present(rows.imitationMasks, 'the rows of imitation masks an imitation term needs').push(...trajectories.map((t, i) => (dropped[i] ? t.authors.map(() => 0) : t.authors.map((a) => (a === imitated ? 1 : 0)))));
  }
  rows.trajectories.push(...trajectories);
  rows.masks.push(...masks);
  rows.advantages.push(...advantages);

  const coDecoded = game.protocol.family === 'co-decoding' && trajectories[0].roles.length > 1;
  return {
    zeroVarianceGroups: result.zeroVarianceGroups,
    dropped: perMatch.filter((m) => m.dropped).length,
    ...(coDecoded ? { share: mean(masked.masks.map((m) => m.shares[0].share)) } : {}),
    advantages: perMatch,
    metrics: result.metrics ?? {},
  };
}

/** The largest entropy bonus a policy ever trains with (its learner's graph needs the input when any is nonzero). */
export function entropyCoefOf(game: Game, policy: string): number {
  const coefs = distinctSteps(game.rotation).flatMap((step) => {
    const { seats } = game.rotation.at(step);
    return game.roles.filter((role) => seats[role] === policy && game.trainable.includes(role)).map((role) => game.losses[role]?.entropy?.coef ?? 0);
  });
  return Math.max(0, ...coefs);
}

/**
 * The policy whose weights an exact KL term of `policy` reads (the seated policy of its `toward` role, or `initial`
 * for its own start), fixed when its learner is built; undefined when no role it trains has one. Every step of the
 * rotation must seat the same one, since the learner's graph reads one reference.
 */
export function exactKlReference(game: Game, policy: string): string | undefined {
  const references = new Set(
    distinctSteps(game.rotation).flatMap((step) => {
      const { seats } = game.rotation.at(step);
      return game.roles
        .filter((role) => seats[role] === policy && game.trainable.includes(role))
        .flatMap((role) => {
          const kl = game.losses[role]?.kl;
          return kl?.estimator === 'exact' ? [kl.toward === 'initial' ? 'initial' : seats[kl.toward]] : [];
        });
    }),
  );
  if (references.size > 1) fail('CONFIG_INVALID', `policy "${policy}" has an exact KL toward different policies over the rotation (${[...references].join(', ')}); its learner's graph reads one reference`, { policy });
  return [...references][0];
}

/** A policy sitting in several roles at once takes one update: their loss weights must agree. */
function agreed<T extends number | string>(policy: string, roles: readonly string[], values: readonly T[], what: string, none: T): T {
  if (new Set(values).size > 1) {
    fail('CONFIG_INVALID', `policy "${policy}" sits in roles ${roles.join(', ')} at once, whose ${what}s differ (${values.join(', ')}); one update cannot weigh them both`, { policy, roles });
  }
  return values[0] ?? none;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}
