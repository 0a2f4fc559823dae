import { z } from 'zod';
import { LrScheduleSchema } from '../../native/train/lr-schedule.ts';
import { LoraConfigSchema } from '../../native/model/lora.ts';

/** A LoRA adapter a policy trains over its frozen `init` instead of a full copy of it (native/model/lora.ts). */
export const PolicyAdapterSchema = LoraConfigSchema.extend({
  /** Seed of the adapter's initialization; absent, one derived from the run's seed and the policy's place in the game (ours), so two adapters differ. */
  seed: z.number().int().min(0).max(2 ** 32 - 1).optional().describe("seed of the adapter's initial values (default: from the run seed and the policy's place in the game)"),
}).strict();

const Normalization = z.enum(['token-mean', 'sequence-mean', 'constant']);

/** How one trainable policy learns; every field defaults to the run's own (the top-level field of the same name). */
export const LearnerSettingsSchema = z
  .object({
    schedule: LrScheduleSchema.optional(),
    clipLow: z.number().min(0).lt(1).optional(),
    clipHigh: z.number().min(0).optional(),
    weightDecay: z.number().min(0).optional(),
    maxGradNorm: z.number().positive().optional(),
    normalization: Normalization.optional(),
  })
  .strict();

/** One policy slot of the game, bound for this run. */
export const PolicyConfigSchema = LearnerSettingsSchema.extend({
  /** The model directory it starts from, or 'default' (the shipped base of the task); the run's `model` when absent. */
  init: z.string().min(1).optional(),
  /**
   * Whether it learns. Absent: it does if the game's rotation ever trains it. `false` for a policy the rotation
   * trains is refused (choose a game or knobs that keep it fixed instead).
   */
  trainable: z.boolean().optional(),
  /**
   * Train a LoRA adapter over the frozen `init` instead of a full copy (Agon §4: two adapters on one base). The base's
   * weights are shared by every policy that starts from it; only the adapter has gradients and AdamW moments.
   */
  adapter: PolicyAdapterSchema.nullable().optional().describe('a LoRA adapter over the frozen init instead of a full copy, e.g. { "r": 16 }; null: a full copy where the game would default to an adapter'),
}).strict();

export type PolicyConfig = z.output<typeof PolicyConfigSchema>;

/**
 * One RL run. Defaults follow the tandem paper (§3.3, §4.1, appendix A) where its values apply to the shipped
 * 3M-parameter base, and say so where they had to be scaled to it; a default no paper gives is marked as ours.
 */
export const TrainConfigSchema = z
  .object({
    /** A game in the catalog: tandem, grpo, kl-reg, agon, or one a `--plugin` module registers. */
    game: z.string().min(1),
    /** The game's own knobs (its paper's hyperparameters: tandem's p, K, shareBand, juniorImitation; KL-Reg's beta). */
    knobs: z.record(z.string(), z.unknown()).default({}),
    /** Plugin modules (files) that register games and pieces; also `--plugin FILE`. */
    plugins: z.array(z.string().min(1)).default([]),
    task: z.string().default('arithmetic'),
    /** Model directory every policy starts from unless its own `init` says otherwise, or 'default' for the shipped base of the task. */
    model: z.string().default('default'),
    /** The game's policies bound for this run, by name: where each starts, whether it learns, its own learner settings. */
    policies: z.record(z.string(), PolicyConfigSchema).default({}),
    steps: z.number().int().positive().default(60),
    seed: z.number().int().min(0).max(2 ** 32 - 1).default(0),
    /**
     * The training set's size: steps cycle through the first N train problems, epoch after epoch. Absent, every
     * step draws problems no step has seen (a generated task's train split is unbounded).
     */
    trainProblems: z.number().int().positive().optional(),
    /** B, prompts per optimizer step; scaled down from the paper's batch to what two CPU cores decode in seconds (ours). */
    problemsPerStep: z.number().int().positive().default(4),
    /** G, matches per prompt (tandem paper: 8). */
    groupSize: z.number().int().min(2).default(8),
    /** Sampling temperature of rollouts (ours: 0.6); the learner recomputes logprobs at the same temperature. */
    temperature: z.number().positive().default(0.6),
    topP: z.number().gt(0).max(1).default(1),
    /** L, the response budget of a co-decoded turn (ours: the shipped base's context is 320 positions, its solutions well under 200 tokens). */
    maxNewTokens: z.number().int().positive().default(224),
    /** GRPO's clipped ratio, clip(r, 1 − ε_low, 1 + ε_high) (0.2, the GRPO default). */
    clipLow: z.number().min(0).lt(1).default(0.2),
    clipHigh: z.number().min(0).default(0.2),
    /**
     * Peak learning rate (ours). verl's GRPO default for billion-parameter models is 1e-6; the 3M-parameter base
     * moves at a larger step. Measured on the shipped base: 1e-4 drifted to a KL of ~0.2 nats/token from the junior
     * within 20 steps and lost tandem accuracy; 2e-5 raised the training reward with KL under 0.01.
     */
    schedule: LrScheduleSchema.prefault({ lr: 2e-5 }),
    weightDecay: z.number().min(0).default(0.01),
    maxGradNorm: z.number().positive().default(1),
    normalization: Normalization.default('token-mean'),
    /** The base advantage estimator (grpo, dr-grpo, rloo, reinforce++, reinforce++-baseline, or a plugin's); a game may adapt it per role. */
    advantage: z.string().min(1).default('grpo'),
    /** The grader plugin the game's reward pays by: `math` (boxed answers as mathematics) or `exact` (as text). */
    grader: z.string().min(1).default('math'),
    checkpointEvery: z.number().int().positive().default(10),
    /** Validation (the game's verdicts on test problems under its own protocol) for checkpoint selection; 0 turns it off. */
    validateEvery: z.number().int().min(0).default(10),
    validationProblems: z.number().int().positive().default(32),
    /** Non-finite steps are skipped; this many in a row abort the run. */
    maxConsecutiveNonFinite: z.number().int().positive().default(3),
  })
  .strict();

export type TrainConfig = z.output<typeof TrainConfigSchema>;
export type TrainConfigInput = z.input<typeof TrainConfigSchema>;
