import { z } from 'zod';
import { LrScheduleSchema } from '../../native/train/lr-schedule.ts';

/**
 * One RL run. Defaults follow the tandem paper (§3.3, §4.1, appendix A) where its values apply to the shipped
 * 3M-parameter base, and say so where they had to be scaled to it.
 */
export const TrainConfigSchema = z
  .object({
    game: z.enum(['tandem', 'grpo', 'kl-reg']),
    task: z.string().default('arithmetic'),
    /** Model directory, or 'default' for the shipped base of the task. */
    model: z.string().default('default'),
    steps: z.number().int().positive().default(60),
    seed: z.number().int().min(0).max(2 ** 32 - 1).default(0),
    /**
     * The training set's size: steps cycle through the first N train problems, epoch after epoch. Absent, every
     * step draws problems no step has seen (a generated task's train split is unbounded).
     */
    trainProblems: z.number().int().positive().optional(),
    /** B, prompts per optimizer step; scaled down from the paper's batch to what two CPU cores decode in seconds. */
    problemsPerStep: z.number().int().positive().default(4),
    /** G, rollouts per prompt (paper: 8). */
    groupSize: z.number().int().min(2).default(8),
    /** Sampling temperature of rollouts; the learner recomputes logprobs at the same temperature. */
    temperature: z.number().positive().default(0.6),
    topP: z.number().gt(0).max(1).default(1),
    /** L, the response budget; the shipped base's context is 320 positions and its solutions stay well under 200 tokens. */
    maxNewTokens: z.number().int().positive().default(224),
    /** GRPO's clipped ratio, clip(r, 1 − ε_low, 1 + ε_high). */
    clipLow: z.number().min(0).lt(1).default(0.2),
    clipHigh: z.number().min(0).default(0.2),
    /**
     * Peak learning rate. verl's GRPO default for billion-parameter models is 1e-6; the 3M-parameter base moves at
     * a larger step. Measured on the shipped base: 1e-4 drifted to a KL of ~0.2 nats/token from the junior within
     * 20 steps and lost tandem accuracy; 2e-5 raised the training reward with KL under 0.01.
     */
    schedule: LrScheduleSchema.prefault({ lr: 2e-5 }),
    weightDecay: z.number().min(0).default(0.01),
    maxGradNorm: z.number().positive().default(1),
    normalization: z.enum(['token-mean', 'sequence-mean', 'constant']).default('token-mean'),
    /** An advantage estimator plugin: grpo, dr-grpo, rloo, reinforce++, reinforce++-baseline, or a user's. */
    advantage: z.string().min(1).default('grpo'),
    /** The grader plugin the game's reward pays by: `math` (boxed answers as mathematics) or `exact` (as text). */
    grader: z.string().min(1).default('math'),
    /** Per-game knobs (tandem p, K, share band, λ_jun; KL-Reg β). */
    tandem: z
      .object({
        p: z.number().min(0).max(1).optional(),
        K: z.number().int().min(0).optional(),
        shareBand: z.tuple([z.number().min(0).max(1), z.number().min(0).max(1)]).optional(),
        /** λ_jun, the junior-imitation weight (§3.4: the paper uses 0). */
        juniorImitation: z.number().min(0).optional(),
      })
      .strict()
      .default({}),
    klReg: z.object({ beta: z.number().min(0).optional() }).strict().default({}),
    checkpointEvery: z.number().int().positive().default(10),
    /** Validation (accuracy under the game's own protocol on test problems) for checkpoint selection; 0 turns it off. */
    validateEvery: z.number().int().min(0).default(10),
    validationProblems: z.number().int().positive().default(32),
    /** Non-finite steps are skipped; this many in a row aborts the run. */
    maxConsecutiveNonFinite: z.number().int().positive().default(3),
  })
  .strict();

export type TrainConfig = z.output<typeof TrainConfigSchema>;
export type TrainConfigInput = z.input<typeof TrainConfigSchema>;
