import { z } from 'zod';
import { LrScheduleSchema } from '../../native/train/lr-schedule.ts';
import { RolloutServersSchema, TrainerServerSchema } from '../remote/remote-config.ts';
import { LoraConfigSchema } from '../../native/model/lora-config.ts';
import { TrackingSchema } from './tracking-config.ts';
import { EndpointSchema } from '../remote/endpoint-config.ts';

/** A LoRA adapter a policy trains over its frozen `init` instead of a full copy of it (native/model/lora.ts). */
export const PolicyAdapterSchema = LoraConfigSchema.extend({
  /** Seed of the adapter's initialization; absent, one derived from the run's seed and the policy's place in the game (ours), so two adapters differ. */
  seed: z.number().int().min(0).max(2 ** 32 - 1).optional().describe("seed of the adapter's initial values (default: from the run seed and the policy's place in the game)"),
}).strict();

/**
 * Upper bounds (ours) that keep a typo from running into gigabytes or hours before failing: a step decodes
 * problemsPerStep × groupSize rows at once (the decoder refuses a KV cache that cannot fit, but a batch this wide is
 * a mistake, not a plan), and a validation or the final comparison plays one match per problem, every problem held
 * in memory.
 */
export const MAX_ROWS = 4096;
export const MAX_EVAL_PROBLEMS = 100_000;

const Normalization = z.enum(['token-mean', 'sequence-mean', 'constant']).describe("how a step's loss is averaged: over trained tokens, per sequence, or over a constant token budget");

/** How one trainable policy learns; every field defaults to the run's own (the top-level field of the same name). */
export const LearnerSettingsSchema = z
  .object({
    schedule: LrScheduleSchema.optional().describe("this policy's learning-rate schedule; the run's `schedule` when absent"),
    clipLow: z.number().min(0).lt(1).optional().describe("this policy's ε_low; the run's `clipLow` when absent"),
    clipHigh: z.number().min(0).optional().describe("this policy's ε_high; the run's `clipHigh` when absent"),
    weightDecay: z.number().min(0).optional().describe("this policy's AdamW weight decay; the run's when absent"),
    maxGradNorm: z.number().positive().optional().describe("this policy's gradient-norm clip; the run's when absent"),
    normalization: Normalization.optional(),
  })
  .strict();

export type LearnerSettingsInput = z.output<typeof LearnerSettingsSchema>;

/** One policy slot of the game, bound for this run. */
export const PolicyConfigSchema = LearnerSettingsSchema.extend({
  init: z.string().min(1).optional().describe("the model directory this policy starts from, or 'default' (the shipped base of the task); the run's `model` when absent"),
  trainable: z
    .boolean()
    .optional()
    .describe("whether it learns; absent: it does if the game's rotation ever trains it. `false` for a policy the rotation trains is refused"),
  /**
   * Train a LoRA adapter over the frozen `init` instead of a full copy (Agon §4: two adapters on one base). The base's
   * weights are shared by every policy that starts from it; only the adapter has gradients and AdamW moments.
   */
  adapter: PolicyAdapterSchema.nullable()
    .optional()
    .describe('a LoRA adapter over the frozen init instead of a full copy, e.g. { "r": 16 }; null: a full copy where the game would default to an adapter'),
  endpoint: EndpointSchema.optional().describe(
    "an OpenAI-compatible endpoint this policy plays from instead of weights (url, model, tokenEnv, sampling; see Endpoint policies): frozen, seated where the game writes whole turns (a world game's opponent, a sequential partner, a judge); refused in co-decoding and where a loss reads its log-probabilities",
  ),
}).strict();

export type PolicyConfig = z.output<typeof PolicyConfigSchema>;

/** PFSP's weighting of opponents (AlphaStar, Vinyals et al. 2019, Methods), shared by a run's opponent pool and a tournament league. */
export const PfspSettingsSchema = z.strictObject({
  weighting: z
    .enum(['hard', 'variance', 'uniform'])
    .default('hard')
    .describe("PFSP weighting over the win rate x against each opponent (AlphaStar, Methods): `hard` (1 − x)^p, `variance` x(1 − x), `uniform` (plain FSP); AlphaStar's main agents use hard"),
  hardExponent: z.number().positive().default(2).describe('p of f_hard (AlphaStar, Methods: 2)'),
  winRatePrior: z.number().min(0).default(1).describe('games split evenly added to every win rate, so an opponent never met counts as 0.5 (ours)'),
});

/**
 * Self-play against a frozen pool of the learner's own snapshots instead of its current self (AlphaStar's league,
 * Methods; SPIRAL trains against its current self only). Each step the learner sits in one seat (the first at even
 * steps, the second at odd ones: ours) and an opponent drawn from the pool by PFSP sits in the others; it learns from
 * its own seat only.
 */
export const OpponentPoolSchema = PfspSettingsSchema.extend({
  snapshotEvery: z
    .number()
    .int()
    .positive()
    .default(10)
    .describe("steps between snapshots of the learner joining the pool as `<policy>@<step>` (ours: 10; neither SPIRAL nor AlphaStar gives one for a run this short); the pool starts with its starting weights, `<policy>@0`"),
});

/**
 * One RL run (`ludus train --config FILE`). Defaults follow the tandem paper (§3.3, §4.1, appendix A) where its
 * values apply to the shipped 3M-parameter base; a default no paper gives is marked as ours. Every field's meaning
 * is in its description, which docs/config-reference.md lists.
 */
export const TrainConfigSchema = z
  .object({
    game: z.string().min(1).describe('a game in the catalog: tandem, grpo, kl-reg, tango, agon, the world games tictactoe, kuhn-poker, kuhn-poker-match and negotiation, or one a plugin module registers (`ludus games` lists them)'),
    knobs: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("the game's own knobs, its paper's hyperparameters, checked by the game (see the game knob tables below)"),
    plugins: z.array(z.string().min(1)).default([]).describe('plugin modules (files) registering games and pieces, relative to the config file; also `--plugin FILE`'),
    task: z.string().default('arithmetic').describe("the problems: a generated task (arithmetic, last-letter, multiplication; world: a world game's deals), a JSONL file, or a task file naming split files; defaults to the model's own task where it says"),
    model: z.string().default('default').describe("the model directory every policy starts from unless its own `init` says otherwise, or 'default' (the shipped base of the task)"),
    policies: z
      .record(z.string(), PolicyConfigSchema)
      .default({})
      .describe("the game's policies bound for this run, by name: where each starts, whether it learns, its own learner settings (see Policy below)"),
    steps: z.number().int().positive().default(30).describe('optimizer steps (ours: 30, enough on the shipped base for GRPO to lift held-out pass@1 from 0.37 to 0.90)'),
    seed: z.number().int().min(0).max(2 ** 32 - 1).default(0).describe('run seed: every match, coin and sample of the run derives from it'),
    trainProblems: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("the training set's size: steps cycle through the first N train problems; absent, every step draws problems no step has seen"),
    problemsPerStep: z.number().int().positive().max(MAX_ROWS).default(8).describe('B, prompts per optimizer step (ours: scaled down from the paper to what two CPU cores decode in seconds; 8 measured on the shipped base)'),
    groupSize: z.number().int().min(2).max(MAX_ROWS).default(8).describe('G, matches per prompt (tandem paper §4.1: 8); problemsPerStep × groupSize ≤ 4096'),
    temperature: z.number().positive().default(1).describe('sampling temperature of rollouts; the learner scores at the same temperature (ours: 1, the setting measured on the shipped base; see docs/training.md)'),
    chatTemplate: z
      .enum(['on', 'off'])
      .default('on')
      .describe("whether a problem is put to an instruct model (a tokenizer with a chat template, Qwen3 Instruct's) as one user turn through its template, as the tandem paper prompts; 'off': the task's plain prompt; a model without a template (the shipped base) gets the plain prompt either way"),
    topP: z.number().gt(0).max(1).default(1).describe('nucleus sampling threshold (1: off)'),
    maxNewTokens: z.number().int().positive().default(224).describe("L, the response budget of a co-decoded turn (ours: the shipped base's context is 320 positions); a sequential turn has its own in the game"),
    clipLow: z.number().min(0).lt(1).default(0.2).describe("GRPO's ε_low of clip(r, 1 − ε_low, 1 + ε_high) (0.2, GRPO's default)"),
    clipHigh: z.number().min(0).default(0.2).describe("GRPO's ε_high (0.2, GRPO's default)"),
    schedule: LrScheduleSchema.prefault({ lr: 1e-4 }).describe(
      'learning-rate schedule of every trainable policy (ours: lr 1e-4, the setting measured on the shipped base, a 3M-parameter model; verl uses 1e-6 for billion-parameter models)',
    ),
    weightDecay: z.number().min(0).default(0.01).describe('AdamW decoupled weight decay (ours)'),
    maxGradNorm: z.number().positive().default(1).describe('global gradient-norm clip (ours)'),
    microBatchRows: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        "rows per forward+backward run of a policy's update, and per run of a KL reference's scoring; the runs' gradients are summed before its one AdamW step, the same update up to float rounding. Absent (ours): as many rows as keep one run's estimated memory within the run budget (runBudgetBytes) at the batch's length, so short rows run whole (fewest runs, fastest) and long ones a few at a time",
      ),
    runBudgetBytes: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        "the estimated memory one forward+backward run of an update may take when microBatchRows is absent. Absent (ours): chosen when the run starts, from the memory available then: half of what the learners' state leaves, shared by the trainable policies, at least 1 GiB and at most 8 GiB (a Qwen3-0.6B full fine-tuning step over 4 × 128 tokens: 25-27.6 s in runs of one row, 13.5 s in one run). The checkpoint records the value chosen and a resumed run reuses it; set it to replay a run exactly on a machine with other memory",
      ),
    normalization: Normalization.default('token-mean').describe(
      "how a step's loss is averaged: token-mean, over every trained token of the batch (ours, verl's default); sequence-mean, each sequence's token mean, then the mean over sequences: RL Tango's Eq. 1 (1/|o| Σ_t), which tango-vs-grpo uses by default; constant, over a fixed token budget (Dr. GRPO)",
    ),
    advantage: z.string().min(1).default('grpo').describe('the base advantage estimator: grpo, dr-grpo, rloo, reinforce++, reinforce++-baseline, rae (SPIRAL §3.3: a per-role EMA baseline, decay 0.95; a world game\'s default), or a plugin\'s; a game may adapt it per role'),
    grader: z.string().min(1).default('math').describe('the grader the reward pays by: math (boxed answers as mathematics), math-full (the answer wherever it is, compared with the rules of Math-Verify 0.8.0 as well, see docs/grading.md), exact (boxed text as text)'),
    checkpointEvery: z.number().int().positive().default(10).describe('steps between checkpoints (every trainable policy, its optimizer, the trainer state)'),
    validateEvery: z.number().int().min(0).default(10).describe("steps between validations (the grader's verdicts on the task's validation problems, disjoint from its test problems, under the game's own protocol) that keep best/; 0 turns it off"),
    validationProblems: z.number().int().positive().max(MAX_EVAL_PROBLEMS).default(32).describe("problems per validation, from the task's validation split (its test split for a task without one)"),
    evalEvery: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe("a world game's steps between evaluations against fixed opponents (its reference opponents and its base; SPIRAL evaluates every 16 steps), into metrics.jsonl and the viewer's curves; where the run does not validate, best/ is chosen by them; 0 turns it off (ours)"),
    evalMatches: z.number().int().min(2).max(MAX_EVAL_PROBLEMS).default(32).describe('matches per fixed opponent at each evaluation, the trained policy in each of its seats in turn, on the same validation deals and seeds every time (ours)'),
    evalOpponents: z.array(z.string().min(1)).min(1).optional().describe("the fixed opponents (the game's reference opponents by name, `base`: the policy's own start); absent: all of them"),
    collapseDrop: z.number().gt(0).max(1).default(0.2).describe('the collapse alarm: a warning when the draw-or-win rate against a fixed opponent falls more than this below its best so far (ours)'),
    maxConsecutiveNonFinite: z.number().int().positive().default(3).describe('non-finite updates are skipped; this many in a row abort the run'),
    rolloutServers: RolloutServersSchema.optional().describe('rollouts on vLLM or SGLang servers (or `ludus serve-model`) over HTTP instead of the in-process decoders (see Rollout servers below)'),
    rolloutsAhead: z
      .number()
      .int()
      .min(0)
      .max(8)
      .default(0)
      .describe(
        "versions the rollouts may run ahead of learning (ours; 0: on-policy, each step sampled by the weights its predecessor left): with k ≥ 1 the rollouts of step n + k are sampled while step n learns, each turn's clip ratio taken against the log-probabilities of the version that sampled it, a row more than k versions old refused; needs rolloutServers (in-process decoders read the weights the learner updates), not across a checkpoint, so a resume stays exact",
      ),
    trainerServer: TrainerServerSchema.optional().describe('every trainable policy learns through the ludus trainer API (`ludus serve-trainer`; modelled on the operations of Tinker, not its protocol) instead of the in-process learner (see Trainer server below)'),
    opponentPool: OpponentPoolSchema.optional().describe(
      "self-play against a frozen pool of the learner's snapshots drawn by PFSP (see Opponent pool below); absent: against its current self (SPIRAL). A self-play game only",
    ),
    finalComparison: z
      .number()
      .int()
      .min(0)
      .max(MAX_EVAL_PROBLEMS)
      .default(64)
      .describe('held-out test problems on which, at the end of the run, the trained policies play against their starting point on the same seeds (with bootstrap SEs); 0: none (ours)'),
    tracking: TrackingSchema.optional().describe('experiment trackers the run also logs to, beside metrics.jsonl and the TensorBoard files (see MLflow tracking below); a resumed run may change it'),
  })
  .strict()
  .refine((config) => config.problemsPerStep * config.groupSize <= MAX_ROWS, {
    message: `problemsPerStep × groupSize (the rows a step decodes at once) must be at most ${MAX_ROWS}`,
    path: ['groupSize'],
  });

export type TrainConfig = z.output<typeof TrainConfigSchema>;
export type TrainConfigInput = z.input<typeof TrainConfigSchema>;
