import { z } from 'zod';
import { AdamWConfigSchema } from './adamw.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { DEVICES } from '../ort.ts';

/** Learner knobs. Defaults follow common GRPO practice; see LEARNER_PRESETS for tiny models. */
export const LearnerConfigSchema = z
  .object({
    objective: z.enum(['policy-gradient', 'sft']).default('policy-gradient'),
    optimizer: AdamWConfigSchema.prefault({}),
    /** ε_low and ε_high of the clipped ratio: clip(r, 1 − ε_low, 1 + ε_high). */
    clipLow: z.number().min(0).lt(1).default(0.2),
    clipHigh: z.number().min(0).default(0.2),
    /** β of the KL penalty toward the reference policy. */
    klBeta: z.number().min(0).default(0),
    /**
     * How the KL is computed per position. `k3`: the estimate exp(ref − lp) − (ref − lp) − 1 from the reference's
     * log p of the sampled token (batches carry `refLogprobs`), verl's low-variance default. `exact`:
     * Σ_v π(v)(log π(v) − log π_ref(v)) over the vocabulary, as tandem RL appendix C's Eq. 2 writes KL-Reg, with the
     * reference run in the train graph from its weights (`Learner.create`'s `reference`), reduced there. Ours: k3.
     */
    klEstimator: z.enum(['k3', 'exact']).default('k3'),
    entropyCoef: z.number().default(0),
    /** λ of the imitation term on a batch's `imitationMask` positions (tandem's λ_jun; the paper uses 0). */
    imitationWeight: z.number().min(0).default(0),
    /** The sampling temperature the old logprobs were taken at; logits are divided by it. */
    temperature: z.number().positive().default(1),
    normalization: z.enum(['token-mean', 'sequence-mean', 'constant']).default('token-mean'),
    /** Token budget per sequence for `constant` normalization; defaults to the batch's padded length. */
    constantTokens: z.number().int().positive().optional(),
    /** Rows per forward+backward run; gradients of all runs are summed before one AdamW update. Absent: as many as the run budget holds at the batch's length (rowsWithinBudget). */
    microBatchRows: z.number().int().positive().optional(),
    /**
     * The run budget: the estimated memory (trainRunBytes) one forward+backward run may take when `microBatchRows`
     * is absent. Absent: chosen when the learner is created from the memory available then (chooseRunBudget, ours;
     * at least 1 GiB, at most 8 GiB); the learner's `runBudgetBytes` says which. A trainer records it with its run.
     */
    runBudgetBytes: z.number().int().positive().optional(),
    /** ORT intra-op threads; 0 lets ORT choose. */
    threads: z.number().int().min(0).default(0),
    /** Where the train and score graphs run (docs/gpu.md); the weights, gradients and AdamW stay in host memory. */
    device: z.enum(DEVICES).default('cpu'),
    /** Longest sequence the graphs serve; defaults to max_position_embeddings. */
    maxSeqLen: z.number().int().positive().optional(),
  })
  .strict();

export type LearnerConfig = z.output<typeof LearnerConfigSchema>;
export type LearnerConfigInput = z.input<typeof LearnerConfigSchema>;

export function parseLearnerConfig(input: unknown): LearnerConfig {
  return parseConfig(LearnerConfigSchema, input, 'learner config');
}

/** Named starting points. `grpo` keeps the defaults (lr 1e-6 suits billion-parameter models). */
export const LEARNER_PRESETS = {
  grpo: {},
  /** Few-million-parameter models such as the qwen3-4m preset learn at a much larger step. */
  'tiny-grpo': { optimizer: { lr: 1e-4 } },
  'tiny-sft': { objective: 'sft', optimizer: { lr: 3e-3 } },
} satisfies Record<string, LearnerConfigInput>;
