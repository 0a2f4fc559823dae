import type { TrainConfig } from '../../engine/trainer/train-config.ts';
import type { ValidationSource } from '../../plugins/tasks/held-out-validation.ts';
import type { EvalReport, PairedTest, SignificanceResult } from '../eval/report-types.ts';
import type { VerifierEvalResult } from '../eval/verifier-eval.ts';
import type { PhaseCost } from './experiment-runner.ts';
import type { TangoArm } from './tango-experiment-config.ts';

/** One point of a Figure 4 curve: a validation of an arm after `step` steps, on the game's validation problems. */
export interface CurvePoint {
  readonly step: number;
  readonly generatorUpdates: number;
  readonly verifierUpdates: number;
  readonly accuracy: number;
  readonly outcome_f1: number | null;
  readonly step_f1: number | null;
}

export interface TangoArmResult {
  readonly arm: TangoArm;
  readonly config: TrainConfig;
  readonly steps: number;
  readonly generatorUpdates: number;
  readonly verifierUpdates: number;
  /** The models the arm ends with (the base where it never trained that policy). */
  readonly generator: string;
  readonly verifier: string;
  readonly curve: readonly CurvePoint[];
}

/** A paired test of one model against another (generators: pass rates; verifiers: each problem's share of right calls). */
export interface VerifierTest extends PairedTest {
  readonly model: string;
  readonly other: string;
  /** Whose solutions were judged: the base generator's (fixed) or Tango's final generator's (evolving). */
  readonly solutions: 'base' | 'tango';
}

export interface TangoExperimentResult {
  readonly out: string;
  readonly base: string;
  readonly seed: number;
  readonly arms: readonly TangoArmResult[];
  /** Where the curves' validation problems came from (never the test split). */
  readonly validation: ValidationSource | null;
  /** The curves' common start: the base as both policies, validated like the arms. */
  readonly baseCurvePoint: CurvePoint;
  readonly generators: Readonly<Record<'base' | TangoArm, EvalReport | undefined>>;
  readonly generatorTests: readonly { readonly model: string; readonly other: string; readonly significance: SignificanceResult }[];
  /** Every final verifier judging the base generator's solutions (fixed solutions). */
  readonly verifiers: Readonly<Record<string, VerifierEvalResult>>;
  /** The same verifiers judging Tango's final generator's solutions: the solutions the co-evolving verifier grew up with. */
  readonly verifiersOnTango: Readonly<Record<string, VerifierEvalResult>>;
  readonly verifierTests: readonly VerifierTest[];
  readonly grader: string;
  readonly costs: readonly PhaseCost[];
  readonly report: string;
}
