import { z } from 'zod';
import { WENG_LIN_DEFAULTS } from '../../core/tournament/skill-ratings.ts';
import { EndpointSchema } from '../../engine/remote/endpoint-config.ts';
import { LearnerSettingsSchema, MAX_ROWS, PfspSettingsSchema, PolicyAdapterSchema, TrainConfigSchema } from '../../engine/trainer/train-config.ts';

/** Entrant names become directory names and match labels: letters, digits, `.`, `_`, `-` (`@` is kept for snapshots). */
const ENTRANT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export const EntrantSchema = LearnerSettingsSchema.extend({
  name: z.string().regex(ENTRANT_NAME, 'must be letters, digits, ".", "_" or "-", starting with a letter or digit').describe('its name in standings, plots and transcripts: letters, digits, `.`, `_`, `-`'),
  init: z
    .string()
    .min(1)
    .default('default')
    .describe("a Hugging Face model directory (a checkpoint's `policies/<name>`, a run's `best/<name>`), 'default': the shipped base of the task, or a LoRA adapter directory in PEFT's layout (adapter_config.json, no config.json), played over its base"),
  /**
   * A LoRA adapter over `init` (a full model, the adapter's base) instead of `init` itself: trained from scratch when
   * the entrant is trainable, its initial values from `seed` (absent: one derived from the tournament's seed and the
   * entrant's place in the list, ours). Adapter entrants on one base share its weights in memory.
   */
  adapter: PolicyAdapterSchema.optional().describe('a LoRA adapter over `init` (its base) instead of a copy of it, e.g. { "r": 16 }; only the adapter trains, snapshots hold only the adapter'),
  base: z
    .string()
    .min(1)
    .optional()
    .describe("the base model directory (or 'default') of an adapter `init`, when its adapter_config.json's base_model_name_or_path is not that local directory"),
  trainable: z.boolean().default(false).describe('learns from its own matches between rounds, with its own AdamW and checkpoint'),
  snapshotEvery: z.number().int().positive().optional().describe('a trainable entrant leaves a frozen copy of itself in the pool every this many rounds, named `<name>@<round>`'),
  games: z.array(z.string().min(1)).min(1).optional().describe("the games it enters; all of the tournament's when absent"),
  endpoint: EndpointSchema.optional().describe(
    "a model behind an OpenAI-compatible endpoint instead of weights (url, model, tokenEnv, sampling; see Endpoint policies): frozen, it plays whole turns from their text, rated beside the local entrants; `init` is then unused. Not in a co-decoding game",
  ),
}).strict();

export const GameEntrySchema = z.strictObject({
  game: z.string().min(1).describe("a game in the catalog (tandem, grpo, kl-reg, or a plugin's)"),
  knobs: z.record(z.string(), z.unknown()).default({}).describe("the game's own knobs, as in a training config"),
  /**
   * The game's sides: roles paid together (a team). Absent: the authors of a co-decoding game write one answer together,
   * so they are one side; every role of a sequential game is its own side. One side: lineups are ranked against each
   * other on the same problem; two sides: each match ranks its two sides.
   */
  sides: z
    .array(z.array(z.string().min(1)).min(1))
    .min(1)
    .max(2)
    .optional()
    .describe("the roles paid together (one or two sides); absent: a co-decoding game's authors are one side, a sequential game's roles each their own"),
  swapSeats: z.boolean().default(true).describe('play every pairing from both seatings, so neither entrant keeps the first seat (ours)'),
});

export const RoundRobinSchema = z.strictObject({
  kind: z.literal('round-robin').describe('`"round-robin"`'),
  cycles: z.number().int().positive().default(1).describe('times every two entrants meet'),
  schedule: z
    .enum(['all', 'circle'])
    .default('all')
    .describe('`all`: a whole cycle every round (every entrant meets every other); `circle`: a cycle spread over rounds, one pairing per entrant a round'),
});

export const SwissSchema = z.strictObject({
  kind: z.literal('swiss').describe('`"swiss"`'),
  rounds: z.number().int().positive().describe('Swiss rounds; no more than the entrants allow without a repeated pairing'),
});

export const LeagueSchema = z.strictObject({
  kind: z.literal('league').describe('`"league"`'),
  rounds: z.number().int().positive().describe('league rounds'),
  opponents: z.number().int().positive().default(2).describe('distinct opponents a trainable entrant meets each round (ours)'),
  ...PfspSettingsSchema.shape,
});

export const FixturesSchema = z.strictObject({
  kind: z.literal('fixtures').describe('`"fixtures"`'),
  rounds: z.number().int().positive().default(1).describe('times the fixtures are played'),
  pairings: z.array(z.tuple([z.string().min(1), z.string().min(1)])).min(1).describe('the pairings every round plays, by entrant name, first seat first'),
});

export const FormatSchema = z.discriminatedUnion('kind', [RoundRobinSchema, SwissSchema, LeagueSchema, FixturesSchema]);

export const RatingSettingsSchema = z.strictObject({
  mu: z.number().default(WENG_LIN_DEFAULTS.mu).describe("an entrant's starting skill μ (Weng & Lin 2011; openskill's default)"),
  sigma: z.number().positive().default(WENG_LIN_DEFAULTS.sigma).describe("its starting uncertainty σ (Weng & Lin 2011: μ/3; openskill's default)"),
  beta: z.number().positive().default(WENG_LIN_DEFAULTS.beta).describe("β, the performance noise of one match (Weng & Lin 2011: σ/2; openskill's default)"),
  tau: z.number().min(0).default(WENG_LIN_DEFAULTS.tau).describe("τ, uncertainty added before every contest so ratings keep moving (openskill's default μ/300)"),
  ridge: z.number().min(0).default(0.01).describe("λ of the Bradley–Terry fit's ridge (a N(0, 1/λ) prior), so an unbeaten entrant still has a finite strength (ours)"),
});

const train = TrainConfigSchema.shape;

/**
 * A tournament: entrants, the games they play, a format, and how the trainable ones learn between rounds. Sampling and
 * learner fields mean what they mean in a training config (engine/trainer/train-config.ts), with the same defaults
 * where a tournament has no reason to differ.
 */
export const TournamentConfigSchema = z.strictObject({
  entrants: z.array(EntrantSchema).min(1).describe('the entrants (see Entrant)'),
  games: z.array(GameEntrySchema).min(1).describe('the games every round plays (see Tournament game)'),
  format: FormatSchema.describe('how entrants are paired: `round-robin`, `swiss`, `league` or `fixtures` (see the format sections)'),
  plugins: train.plugins,
  task: train.task,
  grader: train.grader,
  advantage: train.advantage,
  seed: train.seed,
  problemsPerRound: z
    .number()
    .int()
    .positive()
    .max(MAX_ROWS)
    .default(2)
    .describe('problems every lineup plays each round, the same problems and seeds for every lineup of a game: duplicate play (ours)'),
  groupSize: z
    .number()
    .int()
    .min(2)
    .max(MAX_ROWS)
    .default(4)
    .describe('G, matches per problem: a GRPO group for the trainable entrants (tandem paper §4.1: 8; ours: 4, short rounds); problemsPerRound × groupSize ≤ 4096'),
  trainProblems: train.trainProblems,
  temperature: train.temperature,
  topP: train.topP,
  maxNewTokens: z.number().int().positive().default(96).describe("L, a turn's token budget (ours: short matches)"),
  // Learner settings of every trainable entrant, unless the entrant sets its own.
  schedule: train.schedule,
  clipLow: train.clipLow,
  clipHigh: train.clipHigh,
  weightDecay: train.weightDecay,
  maxGradNorm: train.maxGradNorm,
  normalization: train.normalization,
  maxConsecutiveNonFinite: train.maxConsecutiveNonFinite,
  ratings: RatingSettingsSchema.prefault({}).describe('rating constants (see Ratings)'),
  maxLoaded: z.number().int().min(2).default(8).describe("full weight copies held in memory at once (a base that frozen entrants and adapters share counts once); more entrants than this are read from disk as they play (ours)"),
  maxAdaptersLoaded: z.number().int().min(2).default(64).describe('adapter entrants held in memory at once, over the bases counted by maxLoaded (ours)'),
}).refine((config) => config.problemsPerRound * config.groupSize <= MAX_ROWS, {
  message: `problemsPerRound × groupSize (the rows a lineup decodes at once) must be at most ${MAX_ROWS}`,
  path: ['groupSize'],
});

export type TournamentConfig = z.output<typeof TournamentConfigSchema>;
export type TournamentConfigInput = z.input<typeof TournamentConfigSchema>;
export type EntrantConfig = z.output<typeof EntrantSchema>;
export type GameEntry = z.output<typeof GameEntrySchema>;
