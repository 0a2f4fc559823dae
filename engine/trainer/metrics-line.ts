import type { CollapseAlarm, FixedOpponentResults } from './fixed-opponents.ts';
import type { PolicyLearning } from './learn-policy.ts';

/** How a role did at one step: what its matches paid it and, when a policy learned from it, how the estimate went. */
export interface RoleMetrics {
  /** Mean outcome reward. */
  readonly reward_mean: number;
  /** Its standard deviation over the step's rollouts (0: every match paid the role alike); absent in older runs. */
  readonly reward_std?: number;
  /** Share of its matches in which the grader found an answer / the right one (null when no grader judged the role). */
  readonly answer_present: number | null;
  readonly correct: number | null;
  /** Mean response tokens of the turns it wrote in (a co-decoded turn counts whole). */
  readonly response_len: number;
  /** Mean share of its co-decoded turns' tokens it wrote (co-decoding only). */
  readonly share?: number;
  readonly zero_variance_groups?: number;
  /** Rollouts the estimator dropped from the loss. */
  readonly dropped?: number;
  readonly [estimatorMetric: string]: number | null | undefined;
}

/** How a policy's update went (policies that learned at this step only). */
export interface PolicyMetrics {
  readonly loss: number | null;
  readonly grad_norm: number | null;
  readonly clip_frac: number | null;
  /** Mean entropy of the policy's next-token distribution over its trained tokens. */
  readonly entropy: number | null;
  readonly lr: number;
  /** Forward+backward runs the update took (its rows in micro-batches of `microBatchRows`; rows with nothing trained skip). */
  readonly micro_batches: number | null;
  /** 1 when this step's update was non-finite and skipped. */
  readonly skipped_nonfinite: number;
  /** Bytes on the link to the trainer server at this step, both ways (JSON bodies; policies learning through `trainerServer` only). */
  readonly link_bytes?: number;
  /** kl_to_<role>: mean KL (k3, or exact where the game's term asks) toward the policy in that role (or kl_to_initial: its own start), over its trained tokens. */
  readonly [kl: `kl_to_${string}`]: number;
}

/** What a policy behind an endpoint was asked at a step: requests, the endpoint's own token counts, retries. */
export interface EndpointMetrics {
  readonly endpoint_calls: number;
  readonly endpoint_prompt_tokens: number;
  readonly endpoint_completion_tokens: number;
  readonly endpoint_retries: number;
}

/** One line of OUT/metrics.jsonl per optimizer step. */
export interface MetricsLine {
  readonly step: number;
  readonly seconds: number;
  /** Response tokens sampled at this step, over every match (what "tokens seen" adds up); absent in older runs. */
  readonly tokens?: number;
  /** Who sat where, and who learned. */
  readonly seats: Readonly<Record<string, string>>;
  readonly trains: readonly string[];
  readonly roles: Readonly<Record<string, RoleMetrics>>;
  readonly policies: Readonly<Record<string, PolicyMetrics>>;
  /** Policies behind endpoints: what each was asked at this step (flat: `policy/<policy>/endpoint_calls`, …). */
  readonly endpoints?: Readonly<Record<string, EndpointMetrics>>;
  /** At an evaluation step (evalEvery): the trained policies against each fixed opponent. */
  readonly eval?: FixedOpponentResults;
  /** Collapses the evaluation found. */
  readonly alarms?: readonly CollapseAlarm[];
}

/** A metrics line's numbers, flat: `seconds`, `tokens`, `role/<role>/<name>`, `policy/<policy>/<name>`, `eval/<opponent>/<name>` (what curves plot). */
export function flatMetrics(line: Pick<MetricsLine, 'seconds' | 'tokens' | 'roles' | 'policies' | 'endpoints' | 'eval'>): Record<string, number> {
  const flat: Record<string, number> = { seconds: line.seconds, ...(line.tokens === undefined ? {} : { tokens: line.tokens }) };
  for (const [kind, groups] of [['role', line.roles], ['policy', line.policies], ['policy', line.endpoints ?? {}], ['eval', line.eval ?? {}]] as const) {
    for (const [name, metrics] of Object.entries(groups)) {
      for (const [key, value] of Object.entries(metrics)) if (typeof value === 'number' && Number.isFinite(value)) flat[`${kind}/${name}/${key}`] = value;
    }
  }
  return flat;
}

/** A policy's update as metrics: loss, gradient norm, clip fraction, learning rate, whether it was skipped, KLs. */
export function policyMetrics(learning: PolicyLearning, lr: number, linkBytes?: number): PolicyMetrics {
  return {
    loss: learning.stats?.loss ?? null,
    grad_norm: learning.stats?.gradNorm ?? null,
    clip_frac: learning.stats?.clipFraction ?? null,
    entropy: learning.stats?.entropyMean ?? null,
    lr,
    micro_batches: learning.stats?.microBatches ?? null,
    skipped_nonfinite: learning.skippedNonFinite ? 1 : 0,
    ...(linkBytes !== undefined ? { link_bytes: linkBytes } : {}),
    ...learning.kl,
  };
}

/** A validation's numbers in the same flat form: `validation/<role>/accuracy`, `validation/<role>/answer_present`. */
export function validationMetrics(role: string, accuracy: number, answerPresent: number): Record<string, number> {
  return { [`validation/${role}/accuracy`]: accuracy, [`validation/${role}/answer_present`]: answerPresent };
}

/** A policy that took no real step: its gradient was 0 (or nothing of it was trained), and why, per role it sat in. */
export interface IdlePolicy {
  readonly policy: string;
  /** Per trainable role it learned from: groups whose matches all paid the same (advantage 0 everywhere). */
  readonly roles: readonly { readonly role: string; readonly zeroVarianceGroups: number | undefined }[];
}

/**
 * The policies of a step that learned nothing: gradient norm exactly 0, or no token trained, without a non-finite skip
 * (counted apart). Weight decay still moves such a checkpoint, so it must not pass for training.
 */
export function idlePolicies(line: Pick<MetricsLine, 'policies' | 'roles' | 'seats'>): IdlePolicy[] {
  return Object.entries(line.policies).flatMap(([policy, metrics]) => {
    const idle = metrics.skipped_nonfinite === 0 && (metrics.grad_norm === 0 || metrics.grad_norm === null);
    if (!idle) return [];
    const roles = Object.entries(line.seats)
      .filter(([role, seated]) => seated === policy && line.roles[role]?.zero_variance_groups !== undefined)
      .map(([role]) => ({ role, zeroVarianceGroups: line.roles[role].zero_variance_groups }));
    return [{ policy, roles }];
  });
}
