import { z } from 'zod';
import { WENG_LIN_DEFAULTS } from '../../core/tournament/skill-ratings.ts';
import { LearnerSettingsSchema, TrainConfigSchema } from '../../engine/trainer/train-config.ts';

/** Entrant names become directory names and match labels: letters, digits, `.`, `_`, `-` (`@` is kept for snapshots). */
const ENTRANT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export const EntrantSchema = LearnerSettingsSchema.extend({
  name: z.string().regex(ENTRANT_NAME, 'must be letters, digits, ".", "_" or "-", starting with a letter or digit'),
  /** A Hugging Face model directory (a checkpoint's `policies/<name>`, a run's `best/<name>`), or 'default': the shipped base of the task. */
  init: z.string().min(1).default('default'),
  /** Learns from its own matches between rounds, with its own AdamW and checkpoint. */
  trainable: z.boolean().default(false),
  /** A trainable entrant leaves a frozen copy of itself in the pool every this many rounds, named `<name>@<round>`. */
  snapshotEvery: z.number().int().positive().optional(),
  /** The games it enters (all of the tournament's when absent). */
  games: z.array(z.string().min(1)).min(1).optional(),
}).strict();

export const GameEntrySchema = z.strictObject({
  /** A game in the catalog (tandem, grpo, kl-reg, or a plugin's). */
  game: z.string().min(1),
  knobs: z.record(z.string(), z.unknown()).default({}),
  /**
   * The game's sides: roles paid together (a team). Absent: the authors of a co-decoding game write one answer together,
   * so they are one side; every role of a sequential game is its own side. One side: lineups are ranked against each
   * other on the same problem; two sides: each match ranks its two sides.
   */
  sides: z.array(z.array(z.string().min(1)).min(1)).min(1).max(2).optional(),
  /** Play every pairing from both seatings (ours: true, so neither entrant keeps the first seat). */
  swapSeats: z.boolean().default(true),
});

const RoundRobinSchema = z.strictObject({
  kind: z.literal('round-robin'),
  /** Times every two entrants meet. */
  cycles: z.number().int().positive().default(1),
  /** `all`: a whole cycle every round (every entrant meets every other); `circle`: a cycle spread over rounds, one pairing per entrant a round. */
  schedule: z.enum(['all', 'circle']).default('all'),
});

const SwissSchema = z.strictObject({
  kind: z.literal('swiss'),
  rounds: z.number().int().positive(),
});

const LeagueSchema = z.strictObject({
  kind: z.literal('league'),
  rounds: z.number().int().positive(),
  /** Distinct opponents a trainable entrant meets each round (ours). */
  opponents: z.number().int().positive().default(2),
  /** PFSP weighting (AlphaStar, Methods): `hard` f(x) = (1 − x)^p, `variance` f(x) = x(1 − x), `uniform` (plain FSP). AlphaStar's main agents use hard. */
  weighting: z.enum(['hard', 'variance', 'uniform']).default('hard'),
  /** p of f_hard (AlphaStar: 2). */
  hardExponent: z.number().positive().default(2),
  /** Games split evenly added to every win rate, so an opponent never met counts as 0.5 (ours: 1). */
  winRatePrior: z.number().min(0).default(1),
});

const FixturesSchema = z.strictObject({
  kind: z.literal('fixtures'),
  rounds: z.number().int().positive().default(1),
  /** The pairings every round plays, first seat first. */
  pairings: z.array(z.tuple([z.string().min(1), z.string().min(1)])).min(1),
});

export const FormatSchema = z.discriminatedUnion('kind', [RoundRobinSchema, SwissSchema, LeagueSchema, FixturesSchema]);

export const RatingSettingsSchema = z.strictObject({
  /** Weng–Lin constants (Weng & Lin 2011; openskill's defaults). */
  mu: z.number().default(WENG_LIN_DEFAULTS.mu),
  sigma: z.number().positive().default(WENG_LIN_DEFAULTS.sigma),
  beta: z.number().positive().default(WENG_LIN_DEFAULTS.beta),
  tau: z.number().min(0).default(WENG_LIN_DEFAULTS.tau),
  /** λ of the Bradley–Terry fit's ridge (a N(0, 1/λ) prior, ours: 0.01), so an unbeaten entrant still has a finite strength. */
  ridge: z.number().min(0).default(0.01),
});

const train = TrainConfigSchema.shape;

/**
 * A tournament: entrants, the games they play, a format, and how the trainable ones learn between rounds. Sampling and
 * learner fields mean what they mean in a training config (engine/trainer/train-config.ts), with the same defaults
 * where a tournament has no reason to differ.
 */
export const TournamentConfigSchema = z.strictObject({
  entrants: z.array(EntrantSchema).min(1),
  games: z.array(GameEntrySchema).min(1),
  format: FormatSchema,
  plugins: train.plugins,
  task: train.task,
  grader: train.grader,
  advantage: train.advantage,
  seed: train.seed,
  /** Problems every lineup plays each round (the same problems and seeds for every lineup of a game: duplicate play). Ours: 2. */
  problemsPerRound: z.number().int().positive().default(2),
  /** G, matches per problem (a GRPO group for the trainable entrants; tandem paper: 8). Ours: 4. */
  groupSize: z.number().int().min(2).default(4),
  trainProblems: train.trainProblems,
  temperature: train.temperature,
  topP: train.topP,
  /** L, a co-decoded turn's budget (ours: short matches, 96 tokens). */
  maxNewTokens: z.number().int().positive().default(96),
  /** Learner settings of every trainable entrant, unless the entrant sets its own. */
  schedule: train.schedule,
  clipLow: train.clipLow,
  clipHigh: train.clipHigh,
  weightDecay: train.weightDecay,
  maxGradNorm: train.maxGradNorm,
  normalization: train.normalization,
  maxConsecutiveNonFinite: train.maxConsecutiveNonFinite,
  ratings: RatingSettingsSchema.prefault({}),
  /** Entrants' weights held in memory at once (ours: 8); more entrants than this are read from disk as they play. */
  maxLoaded: z.number().int().min(2).default(8),
});

export type TournamentConfig = z.output<typeof TournamentConfigSchema>;
export type TournamentConfigInput = z.input<typeof TournamentConfigSchema>;
export type EntrantConfig = z.output<typeof EntrantSchema>;
export type GameEntry = z.output<typeof GameEntrySchema>;
