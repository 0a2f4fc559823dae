import { z } from 'zod';
import { LrScheduleSchema } from '../../native/train/lr-schedule.ts';

/** How the embedded default base models are made: tokenizer, architecture and supervised training. */
export const PretrainConfigSchema = z
  .object({
    task: z.enum(['arithmetic', 'last-letter']),
    taskOptions: z.record(z.string(), z.unknown()).default({}),
    /**
     * The base's designed flaw (ours): each supervised solution is the task's `slipped` walk, in which every due carry
     * or borrow is forgotten with this probability, so the base learns to forget that often. 0 trains on gold
     * solutions only.
     */
    slipRate: z.number().min(0).max(1).default(0),
    seed: z.number().int().min(0).default(0),
    /** Byte-level BPE vocabulary (specials + 256 bytes + merges). */
    vocabSize: z.number().int().min(260).default(1024),
    /** Training problems whose text trains the tokenizer. */
    tokenizerProblems: z.number().int().positive().default(4000),
    /** Hugging Face config fields laid over the qwen3-4m preset (vocab size comes from the tokenizer). */
    model: z.record(z.string(), z.unknown()).default({}),
    steps: z.number().int().positive().default(1200),
    batch: z.number().int().positive().default(32),
    schedule: LrScheduleSchema.prefault({ lr: 2e-3, warmupSteps: 50, decay: 'cosine', minRatio: 0.05 }),
    weightDecay: z.number().min(0).default(0.01),
    maxGradNorm: z.number().positive().default(1),
    /** Longest prompt + solution in tokens (also the model's max_position_embeddings). */
    maxTokens: z.number().int().positive().default(320),
    checkpointEvery: z.number().int().positive().default(100),
    /** Storage dtype of the final weights. */
    saveDtype: z.enum(['F32', 'BF16']).default('F32'),
  })
  .strict();

export type PretrainConfig = z.output<typeof PretrainConfigSchema>;

/** Per-task defaults: the shipped base models were made with exactly these. */
export const PRETRAIN_PRESETS: Record<PretrainConfig['task'], z.input<typeof PretrainConfigSchema>> = {
  arithmetic: { task: 'arithmetic', steps: 1500, slipRate: 0.5, saveDtype: 'BF16' },
  'last-letter': { task: 'last-letter', steps: 800, batch: 16, maxTokens: 512, saveDtype: 'BF16' },
};
