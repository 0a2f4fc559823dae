import type { TrainConfig } from '../../engine/trainer/train-config.ts';
import type { CascadeEvalResult } from '../eval/cascade-eval.ts';
import type { EvalReport, PairedTest } from '../eval/report-types.ts';
import type { AgonArm, AgonRow } from './agon-experiment-config.ts';
import type { PhaseCost } from './experiment-runner.ts';

export interface AgonArmRun {
  readonly arm: AgonArm;
  readonly config: TrainConfig;
  readonly dir: string;
}

/** One evaluated model: a single pass (the solo capability report) or a cascade. */
export type AgonRowResult = { readonly kind: 'single'; readonly report: EvalReport } | { readonly kind: 'cascade'; readonly result: CascadeEvalResult };

export interface AgonTest extends PairedTest {
  readonly model: AgonRow;
  readonly other: AgonRow;
  /** pass@k of the other side (the model's is pass@1): 2 pairs a one-pass baseline's two generations with the cascade's two. */
  readonly other_k: number;
}

export interface AgonExperimentResult {
  readonly out: string;
  readonly base: string;
  readonly arms: readonly AgonArmRun[];
  readonly rows: Readonly<Partial<Record<AgonRow, AgonRowResult>>>;
  readonly tests: readonly AgonTest[];
  /** The per-generation cap of every model: the agon turn cap, and GRPO's response budget. */
  readonly turnTokens: number;
  readonly grader: string;
  readonly costs: readonly PhaseCost[];
  readonly report: string;
}
