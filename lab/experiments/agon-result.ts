import type { TrainConfig } from '../../engine/trainer/train-config.ts';
import type { CascadeEvalResult } from '../eval/cascade-eval.ts';
import type { AnswerDivergence } from '../eval/answer-divergence.ts';
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
  /** Per two-adapter run trained: how often A and B, each answering alone on the same test problems and seeds, give different final answers. */
  readonly divergence: Readonly<Partial<Record<AgonArm, AnswerDivergence>>>;
  /** Per Agon-game run: conversions in its training matches, per step and in all (from its metrics.jsonl). */
  readonly training: Readonly<Partial<Record<AgonArm, TrainingConversions>>>;
  /** The per-generation cap of every model: the agon turn cap, and GRPO's response budget. */
  readonly turnTokens: number;
  readonly grader: string;
  readonly costs: readonly PhaseCost[];
  readonly report: string;
}

/** One Agon run's conversions in its training matches: the challenger's labels, per step and over the run. */
export interface TrainingConversions {
  /** Per step: the share of challenges converting a wrong draft, of drafts right, and their ratio (null: every draft right). */
  readonly steps: readonly { readonly step: number; readonly converted: number; readonly draft_correct: number; readonly per_wrong_draft: number | null }[];
  /** Conversions per wrong draft over every step (each step has as many matches); null when no draft was wrong. */
  readonly per_wrong_draft: number | null;
}
