import type { ScheduleSpec } from '../../core/schedules/spec.ts';
import type { Rollout } from '../../native/runtime/generate.ts';
import type { SamplingParams } from '../../native/runtime/sampler.ts';
import type { StepStreamer } from './match-events.ts';

/**
 * One generation call of the match engine: rows written by one tuple of policies stepped together (a single policy
 * for a solo or sequential turn, a co-decoded turn's authors in protocol order), each row from its own prompt.
 */
export interface RolloutCall {
  readonly policies: readonly string[];
  readonly prompts: readonly (readonly number[])[];
  /**
   * Without a schedule: which of `policies` writes each row (an index), so rows of several policies go in one call;
   * all rows are the first policy's when absent. Only policies the runtime gives one `stackKey` are put in one call.
   */
  readonly rowPolicies?: readonly number[];
  readonly maxNewTokens: number;
  /** Each row's own budget (at most `maxNewTokens`). */
  readonly rowMaxNewTokens?: readonly number[];
  /** Row r samples from (seed, r) unless `rowSeeds` gives its seed. */
  readonly seed: number;
  readonly rowSeeds?: readonly number[];
  readonly sampling: SamplingParams;
  readonly stopTokens: readonly number[];
  /** Per row: strings that end it once its decoded text ends with one (sequential turns' `stop`). */
  readonly stopStrings?: readonly (readonly string[])[];
  /** The tokenizer's decoding, for matching `stopStrings` (required with them). */
  readonly decode?: (ids: number[]) => string;
  /** Who writes each token (co-decoding); one policy writes everything when absent. */
  readonly schedule?: ScheduleSpec;
  /** Also record every author's log-probability of every token. */
  readonly partnerLogprobs?: boolean;
  /** Called as tokens are decoded (tokens -1 for rows with nothing new at that step). */
  readonly onStep?: StepStreamer;
}

export interface RolloutResult {
  readonly rollouts: readonly Rollout[];
  /** The weight version each policy of the call had while sampling (in call order). */
  readonly versions: readonly number[];
}

/**
 * Where the match engine's tokens come from: the in-process decoders (DecoderPool) or servers over HTTP
 * (engine/remote). Games and the trainer see only this; `rows` is how many rows one call may carry.
 */
export interface MatchRuntime {
  readonly rows: number;
  /** Positions (prompt + response) a row may hold. */
  readonly maxLen: number;
  generate(call: RolloutCall): Promise<RolloutResult>;
  /**
   * Policies with one key decode together: their rows may share one call (`rowPolicies`), run as one batch (LoRA
   * adapters over one base in the in-process runtime). Undefined: the policy decodes alone. Optional.
   */
  stackKey?(policy: string): string | undefined;
  release(): Promise<void>;
}
