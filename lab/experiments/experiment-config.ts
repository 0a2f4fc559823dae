import { z } from 'zod';
import { EVAL_DEFAULTS } from '../eval/evaluate.ts';

/** The three seniors of the tandem paper's main comparison and ablation (§4, §5.2), trained from one base. */
export const EXPERIMENT_GAMES = ['grpo', 'kl-reg', 'tandem'] as const;
export type ExperimentGame = (typeof EXPERIMENT_GAMES)[number];

/** Shown in tables and legends, as the paper names them. */
export const GAME_LABELS: Record<ExperimentGame | 'base', string> = { base: 'base', grpo: 'GRPO', 'kl-reg': 'KL-Reg', tandem: 'TRL' };

/** Fields every game must share and so are set once, at the top, never inside `train`. */
const MATCHED_FIELDS = ['game', 'steps', 'seed', 'model', 'task'] as const;

const positiveInt = z.number().int().positive();

/** One set of evaluation settings for all four models; defaults are `ludus eval`'s, with every axis on and fewer problems. */
export const ExperimentEvalSchema = z
  .object({
    axes: z.array(z.enum(['capability', 'handoff', 'drift', 'legibility'])).min(1).default(['capability', 'handoff', 'drift', 'legibility']),
    /** Test problems of the task; each model gets the same problems and the same sampling seeds. */
    problems: positiveInt.default(100),
    samples: positiveInt.default(EVAL_DEFAULTS.samples),
    /** Sampling temperature; 0 is greedy. */
    temperature: z.number().min(0).default(EVAL_DEFAULTS.temperature),
    topP: z.number().gt(0).max(1).default(EVAL_DEFAULTS.topP),
    maxNewTokens: positiveInt.default(EVAL_DEFAULTS.maxNewTokens),
    batch: positiveInt.default(EVAL_DEFAULTS.batch),
    bootstrap: positiveInt.default(EVAL_DEFAULTS.bootstrap),
    /** The paper's step-end schedules and, beside them, the training schedule: tandem accuracy, what TRL optimizes. */
    handoffVariants: z.array(z.enum(['alternate', 'bernoulli', 'word'])).min(1).default(['alternate', 'bernoulli', 'word']),
    handoffP: z.number().min(0).max(1).default(EVAL_DEFAULTS.handoffP),
    legibilitySamples: positiveInt.default(EVAL_DEFAULTS.legibilitySamples),
    scoreBatch: positiveInt.default(EVAL_DEFAULTS.scoreBatch),
    displacedTop: positiveInt.optional(),
    displacedRanking: z.enum(['signed', 'absolute']).optional(),
    overEmittedTop: positiveInt.optional(),
    overEmittedMinCount: positiveInt.optional(),
    driftSmoothing: z.number().positive().optional(),
    driftMinJuniorCount: z.number().int().min(0).optional(),
  })
  .strict();

export type ExperimentEval = z.output<typeof ExperimentEvalSchema>;

/**
 * `ludus experiment tandem-vs-grpo`: one set of training settings for all three games (matched settings and seeds),
 * then every evaluation axis on the base and the three seniors with one set of evaluation settings.
 */
export const ExperimentConfigSchema = z
  .object({
    steps: z.number().int().positive().default(20),
    seed: z.number().int().min(0).max(2 ** 32 - 1).default(0),
    /** Training seeds, each a whole experiment in seed-<s>/, summarized across seeds (mean ± SE) in the top report; overrides `seed`. */
    seeds: z.array(z.number().int().min(0).max(2 ** 32 - 1)).min(1).optional(),
    /** Base model directory, or 'default' (the shipped base of the task); the junior of every game and evaluation. */
    model: z.string().default('default'),
    task: z.string().default('arithmetic'),
    /** Overrides of engine/trainer/train-config.ts shared by all three games; `knobs` are keyed by game (`{ "tandem": { "p": 0.5 } }`). */
    train: z
      .record(z.string(), z.unknown())
      .default({})
      .refine((train) => MATCHED_FIELDS.every((field) => !(field in train)), { message: `may not set ${MATCHED_FIELDS.join(', ')}: those are the experiment's own fields, one value for all games` }),
    /**
     * The senior evaluated: `best` by the game's own validation (the paper's protocol, §5.1), falling back to the
     * final checkpoint when validation never ran; or `final`.
     */
    checkpoint: z.enum(['best', 'final']).default('best'),
    eval: ExperimentEvalSchema.prefault({}),
  })
  .strict();

export type ExperimentConfig = z.output<typeof ExperimentConfigSchema>;
export type ExperimentConfigInput = z.input<typeof ExperimentConfigSchema>;

export interface TrainedSenior {
  game: ExperimentGame;
  /** The checkpoint evaluated. */
  dir: string;
  /** Its optimizer step, and whether it is the best by the game's own validation or the final one. */
  step: number;
  selected: 'best' | 'final';
}
