import type { MetricsLine } from './metrics-line.ts';

/**
 * A gradient norm under which a step counts as stalled (ours): real updates of the shipped bases run at 1e-2 to 1 (the
 * clip); a run whose every rollout forfeits, with RAE's baseline settled on the penalty, falls to 1e-15 without ever
 * being exactly 0.
 */
export const STALL_GRAD_NORM = 1e-4;

/** Steps in a row under STALL_GRAD_NORM before a policy is called stalled (ours). */
export const STALL_STEPS = 3;

/** A policy whose gradient stayed under the threshold for STALL_STEPS steps in a row, and the likely cause. */
export interface Stall {
  readonly policy: string;
  /** The first step of the stalled streak. */
  readonly from: number;
  readonly gradNorm: number;
  readonly cause: string;
}

/** The roles a policy sat in and learned from at a step. */
function learningRoles(line: Pick<MetricsLine, 'seats' | 'roles'>, policy: string): string[] {
  return Object.entries(line.seats).filter(([role, seated]) => seated === policy && line.roles[role]?.zero_variance_groups !== undefined).map(([role]) => role);
}

/** Why a policy's gradient is near 0, read off the step's role metrics: every rollout forfeited, a constant reward, or tiny advantages. */
export function stallCause(line: Pick<MetricsLine, 'seats' | 'roles'>, policy: string): string {
  const roles = learningRoles(line, policy);
  const metric = (role: string, name: string) => line.roles[role]?.[name];
  if (roles.length > 0 && roles.every((role) => metric(role, 'forfeit') === 1)) {
    return "every rollout ended in the policy's own illegal or unparseable move, so no legal move was ever rewarded: check that the prompt lists the legal moves and the parser reads what the model writes, or give the game a base of its own (ludus pretrain --plugin FILE --game NAME)";
  }
  if (roles.length > 0 && roles.every((role) => metric(role, 'reward_std') === 0)) return "every match paid the same reward (a constant reward): the reward rule does not tell the policy's matches apart";
  return 'the advantages are near 0: rewards that barely vary within a group, or a running baseline (RAE) that has settled on a reward that no longer changes';
}

/** Watches each step's gradient norms and reports a policy once when it has been under STALL_GRAD_NORM for STALL_STEPS steps in a row. */
export class StallWatch {
  private readonly streaks = new Map<string, number>();
  readonly stalls: Stall[] = [];

  constructor(
    private readonly threshold = STALL_GRAD_NORM,
    private readonly steps = STALL_STEPS,
  ) {}

  /** The stalls this step completes (each streak reported once, at its STALL_STEPS-th step). */
  observe(line: Pick<MetricsLine, 'step' | 'seats' | 'roles' | 'policies'>): Stall[] {
    const found: Stall[] = [];
    for (const [policy, metrics] of Object.entries(line.policies)) {
      if (metrics.skipped_nonfinite > 0) continue;
      const low = metrics.grad_norm === null || metrics.grad_norm < this.threshold;
      const streak = low ? (this.streaks.get(policy) ?? 0) + 1 : 0;
      this.streaks.set(policy, streak);
      if (streak !== this.steps) continue;
      const stall = { policy, from: line.step - this.steps + 1, gradNorm: metrics.grad_norm ?? 0, cause: stallCause(line, policy) };
      found.push(stall);
      this.stalls.push(stall);
    }
    return found;
  }
}

/** A stall as the run prints it. */
export function stallWarning(stall: Stall): string {
  return `WARNING: policy ${stall.policy}'s gradient norm has stayed under ${STALL_GRAD_NORM} since step ${stall.from} (${stall.gradNorm.toExponential(1)} now): it is not learning. Likely cause: ${stall.cause}\n`;
}
