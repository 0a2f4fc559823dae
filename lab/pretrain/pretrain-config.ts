import { z } from 'zod';
import { LrScheduleSchema } from '../../native/train/lr-schedule.ts';
import { TANGO_TEST_SHAPE } from '../../plugins/tasks/last-letter/options.ts';

const TaskName = z.enum(['arithmetic', 'last-letter', 'world', 'world-formats', 'multiplication']);

/** The names of the presets: a task's own, or a base of its own over a task. */
export const PRESET_NAMES = ['arithmetic', 'last-letter', 'world', 'world-general-first', 'world-general', 'arithmetic-judge-first', 'arithmetic-judge', 'kuhn-poker', 'multiplication'] as const;

/** Where `world-general` reads its first stage from: `npx ludus pretrain --preset world-general-first --out runs/world-general-first` writes it. */
export const WORLD_GENERAL_FIRST_MODEL = 'runs/world-general-first/model';

/** Where `arithmetic-judge` reads the first judging base from: `npx ludus pretrain --preset arithmetic-judge-first --out runs/arithmetic-judge-first` writes it. */
export const JUDGE_FIRST_MODEL = 'runs/arithmetic-judge-first/model';

/**
 * Verifier examples in the supervised data (RL Tango appendix B.2: SFT "primarily to ensure that the base models
 * learn to follow the specified instructions and produce outputs that conform to the required format"): the verifier
 * prompt over a gold or corrupted solution, answered by a judgment of every step and a final verdict.
 */
const VerificationSchema = z.strictObject({
  /** Share of all examples that are verifications (ours). */
  share: z.number().min(0).max(1),
  /** Share of verified solutions that are corrupted, the rest gold (ours: half, so both verdicts are common). */
  corrupted: z.number().min(0).max(1).default(0.5),
  /**
   * Each verdict of an example (every step's and the final one) is flipped with this probability (ours): the base learns
   * the format and the working but only a noisy habit of judging, which leaves RL room to sharpen it.
   */
  flip: z.number().min(0).max(0.5).default(0.25),
  /**
   * Which solutions are verified (ours). 'corrupted': gold or the task's corrupted solution, verdicts flipped at `flip`.
   * 'slipped': the base's own slipped solutions (at the run's `slipRate`), judged a step at a time by a verifier that
   * misses each slip with probability `missRate` (the task's `judgedSlip`), nothing flipped: a judge above chance whose
   * flaw is one rule RL can correct.
   */
  solutions: z.enum(['corrupted', 'slipped']).default('corrupted'),
  /** With 'slipped' solutions: the probability that the verifier misses a slip, its designed flaw (ours). */
  missRate: z.number().min(0).max(1).default(0.5),
});

/**
 * Challenger examples (ours; Agon §4's models are chat models SFT'd to read context): the challenger's 'context' prompt
 * over the withheld summary of a draft (the base's own slipped solution), answered by a fresh solution, so the base
 * can answer a prompt with a summary before it, as the paper's models can.
 */
const ChallengeSchema = z.strictObject({
  /** Share of all examples that are challenges (ours). */
  share: z.number().gt(0).lt(1),
});

/** The calc game's format in the supervised data: the share of examples that call, and the share of calls written wrong. */
const ToolCallsSchema = z.strictObject({ callRate: z.number().min(0).max(1), malformedRate: z.number().min(0).max(1) });

/** How the embedded default base models are made: tokenizer, architecture and supervised training. */
export const PretrainConfigSchema = z
  .object({
    task: TaskName,
    taskOptions: z.record(z.string(), z.unknown()).default({}),
    /** Other tasks whose examples are mixed in, each with its share of all examples (the task above has the rest). */
    alsoTasks: z.array(z.strictObject({ task: TaskName, taskOptions: z.record(z.string(), z.unknown()).default({}), share: z.number().gt(0).lt(1) })).default([]),
    verification: VerificationSchema.optional(),
    challenge: ChallengeSchema.optional(),
    /**
     * The calc game's format (ours): every example is the game's prompt with the calculator described, answered by a
     * call at `callRate` (a `malformedRate` share of them written wrong), the calculator's answer as environment text
     * that is not trained, then the boxed answer; or by the boxed answer alone (lab/pretrain/tool-examples.ts). For a
     * task whose canonical form is an expression (multiplication).
     */
    toolCalls: ToolCallsSchema.optional(),
    /**
     * A model directory the run starts from (ours), its architecture, weights and tokenizer, instead of a new tokenizer
     * and random weights; relative paths are from the package root. `model` and the tokenizer fields are then unused;
     * `maxTokens` sets its positions (RoPE has no learnt positions).
     */
    init: z.string().min(1).optional(),
    /**
     * The base's designed flaw (ours): each supervised solution of a task that has one is the task's `slipped` walk at
     * this rate, so the base learns to slip that often: arithmetic forgets each due carry or borrow, last-letter takes
     * the letter before the last of each word, each with this probability. 0 trains on gold solutions only.
     */
    slipRate: z.number().min(0).max(1).default(0),
    seed: z.number().int().min(0).default(0),
    /** Byte-level BPE vocabulary (specials + 256 bytes + merges). */
    vocabSize: z.number().int().min(260).default(1024),
    /** Training problems whose text trains the tokenizer. */
    tokenizerProblems: z.number().int().positive().default(4000),
    /**
     * Words seen fewer times than this in the tokenizer's corpus are not merged (see trainBpe): with the task's random
     * words left out, the vocabulary holds the template's words and single letters, which a tiny model can read the
     * last letter of (1: a plain BPE over everything).
     */
    tokenizerMinPieceCount: z.number().int().min(1).default(1),
    /**
     * Keep whole only the recurring words and split every other letter off alone, its leading space or quote apart
     * (ours; see trainBpe's `spellRareWords`): a random word is then the same letter tokens in the prompt and in the
     * steps that copy it. False: learned merges also apply inside random words (" o", "ow", …), so a word is spelled
     * one way in the prompt and another in a step.
     */
    tokenizerSpellRareWords: z.boolean().default(false),
    /**
     * A first stage (ours): the run's first `steps` steps train on the main task alone, drawn with these task options laid over the run's,
     * `batch` examples a step, solutions as below (gold or slipped), before the mix above takes over. Tango's base
     * learns to find and copy words from the prompt on the paper's short SFT problems (appendix B.2: 2-4 words of 3-6
     * letters) in a few hundred steps of them alone, and not in a thousand steps of the mix (docs/default-base.md).
     * The learning-rate schedule runs over the whole run. Absent: the mix from the first step.
     */
    firstStage: z
      .strictObject({
        steps: z.number().int().positive(),
        taskOptions: z.record(z.string(), z.unknown()).default({}),
        batch: z.number().int().positive(),
        /** The calc format's mix in this stage (see `toolCalls`), where it differs from the run's: calls taught before they are made rare. */
        toolCalls: ToolCallsSchema.optional(),
      })
      .optional(),
    /** Hugging Face config fields laid over the qwen3-4m preset (vocab size comes from the tokenizer). */
    model: z.record(z.string(), z.unknown()).default({}),
    steps: z.number().int().positive().default(1200),
    /**
     * Ends the run and saves the model after this many steps of a schedule planned for `steps` (ours): a base cut
     * short for the time a machine allows stays reproducible from its preset, its learning rate where the planned
     * schedule had it. It does not change what the steps before it do, so a run resumes across a change of it.
     * Absent: `steps`.
     */
    saveAt: z.number().int().positive().optional(),
    batch: z.number().int().positive().default(32),
    schedule: LrScheduleSchema.prefault({ lr: 2e-3, warmupSteps: 50, decay: 'cosine', minRatio: 0.05 }),
    weightDecay: z.number().min(0).default(0.01),
    /**
     * Rows per forward+backward run (ours): each step's examples are sorted by length and run this many at a time, each
     * run padded only to its own longest, the gradients summed before the one update. Absent: the whole batch in one
     * run, as the shipped arithmetic base was made. Worth it when lengths vary, as verifier examples make them.
     */
    microBatchRows: z.number().int().positive().optional(),
    maxGradNorm: z.number().positive().default(1),
    /** Longest prompt + solution in tokens (also the model's max_position_embeddings). */
    maxTokens: z.number().int().positive().default(320),
    checkpointEvery: z.number().int().positive().default(100),
    /** Storage dtype of the final weights. */
    saveDtype: z.enum(['F32', 'BF16']).default('F32'),
  })
  .strict()
  .refine((config) => config.challenge === undefined || (config.verification?.share ?? 0) + config.challenge.share < 1, { message: 'verification.share + challenge.share must leave solutions some examples (sum < 1)', path: ['challenge'] })
  .refine((config) => config.alsoTasks.reduce((sum, also) => sum + also.share, 0) < 1, { message: 'the shares of alsoTasks must leave the main task some examples (sum < 1)', path: ['alsoTasks'] })
  .refine((config) => config.saveAt === undefined || config.saveAt <= config.steps, { message: 'saveAt must be at most steps', path: ['saveAt'] })
  .refine((config) => config.firstStage === undefined || config.firstStage.steps < config.steps, { message: 'firstStage.steps must be fewer than steps', path: ['firstStage', 'steps'] });

export type PretrainConfig = z.output<typeof PretrainConfigSchema>;

/** The first judging stage's recipe, which the second stage's starts from (see the two presets below). */
const JUDGE_FIRST = {
  task: 'arithmetic',
  init: 'models/arithmetic',
  verification: { share: 0.4, solutions: 'slipped', missRate: 0.5, flip: 0 },
  challenge: { share: 0.2 },
  slipRate: 0.5,
  maxTokens: 640,
  steps: 300,
  batch: 16,
  microBatchRows: 8,
  schedule: { lr: 1e-3, warmupSteps: 10, decay: 'cosine', minRatio: 0.05 },
  checkpointEvery: 25,
  saveDtype: 'BF16',
} as const satisfies z.input<typeof PretrainConfigSchema>;

/** Per-task defaults: the shipped base models were made with exactly these. */
export const PRETRAIN_PRESETS: Record<(typeof PRESET_NAMES)[number], z.input<typeof PretrainConfigSchema>> = {
  arithmetic: { task: 'arithmetic', steps: 1500, slipRate: 0.5, saveDtype: 'BF16' },
  /**
   * Tango's base for both roles (models/last-letter): a vocabulary that spells the random words letter by letter, a
   * first stage of the paper's short format-SFT problems alone (appendix B.2: 2-4 words of 3-6 letters), on which the
   * 128-wide model learns to find and copy the prompt's words, then last-letter solutions of the test shape (ours: no
   * test word is longer than what it learnt to copy) mixed with short problems, arithmetic as a second task and weakly
   * labelled verifications of both (appendix B.2: SFT for the format). The designed flaw (ours): each word's letter is
   * taken one too early with probability 0.1, afresh in every sample, so pass@k rises with k and RL has something to
   * fix (see `slipRate`). Verifications reach ~1,200 tokens, hence the positions and the sorted micro-batches; see
   * docs/default-base.md.
   */
  'last-letter': {
    task: 'last-letter',
    taskOptions: { train: TANGO_TEST_SHAPE },
    firstStage: { steps: 500, batch: 32, taskOptions: { train: { words: [2, 4], letters: [3, 6] } } },
    alsoTasks: [
      { task: 'last-letter', taskOptions: { train: { words: [2, 4], letters: [3, 6] } }, share: 0.15 },
      { task: 'arithmetic', share: 0.15 },
    ],
    verification: { share: 0.2 },
    slipRate: 0.1,
    tokenizerMinPieceCount: 50,
    tokenizerSpellRareWords: true,
    model: { hidden_size: 128, intermediate_size: 384, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 32 },
    maxTokens: 1536,
    steps: 1400,
    batch: 16,
    microBatchRows: 8,
    schedule: { lr: 3e-3, warmupSteps: 30, decay: 'cosine', minRatio: 0.05 },
    checkpointEvery: 25,
    saveDtype: 'BF16',
  },
  /**
   * The world games' base (models/world, ours): one position of a uniformly random game per example, its target a
   * uniformly random legal move, so the base plays every world game legally and badly (SPIRAL starts from Qwen3-4B,
   * which knows the rules; a 1.7M-parameter model must be taught them). Half TicTacToe, a quarter each Kuhn Poker and
   * Simple Negotiation (`taskOptions.game`); Tango's 128-wide architecture; prompts under 200 tokens. `legalLine`
   * trains the prompt's legal-moves line as well as the move: without it a 700-step base chose TicTacToe cells
   * nearly uniformly among all nine (72% legal per move at random positions); with it 800 steps (about 9 minutes at
   * load 6-9, 2 threads) give 95% (docs/world-games.md).
   */
  world: {
    task: 'world',
    taskOptions: { game: 'tictactoe', legalLine: true },
    alsoTasks: [
      { task: 'world', taskOptions: { game: 'kuhn-poker', legalLine: true }, share: 0.25 },
      { task: 'world', taskOptions: { game: 'negotiation', legalLine: true }, share: 0.25 },
    ],
    model: { hidden_size: 128, intermediate_size: 384, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 32 },
    vocabSize: 512,
    tokenizerProblems: 3000,
    maxTokens: 256,
    steps: 800,
    batch: 32,
    schedule: { lr: 3e-3, warmupSteps: 30, decay: 'cosine', minRatio: 0.05 },
    checkpointEvery: 50,
    saveDtype: 'BF16',
  },
  /**
   * A general world base's first stage (ours, an experiment; not shipped): positions of world games, each example's target a uniformly random
   * legal move, so the base plays legally and badly (SPIRAL starts from Qwen3-4B, which knows the rules; a
   * 1.7M-parameter model must be taught them). 40% are made-up games whose prompts list their moves in many formats
   * (`world-formats`: numbers, words, made-up words, `add 2`, `B 3`, `c4`, …); the rest are the shipped games,
   * TicTacToe 30%, Kuhn Poker and Simple Negotiation 15% each, with `legalLine`, which trains the prompt's
   * legal-moves line as well as the move (without it a 700-step base chose TicTacToe cells nearly uniformly among all
   * nine). Tango's 128-wide architecture, a vocabulary of 512 trained on the mix; prompts under 200 tokens. Saved at
   * step 450 of a schedule planned for 1,200 (`saveAt`): by then it played the shipped games but did not yet copy a
   * made-up game's moves from its prompt (a race game's moves forfeited 81% of matches), which the second stage teaches.
   */
  'world-general-first': {
    task: 'world',
    taskOptions: { game: 'tictactoe', legalLine: true },
    alsoTasks: [
      { task: 'world-formats', share: 0.4 },
      { task: 'world', taskOptions: { game: 'kuhn-poker', legalLine: true }, share: 0.15 },
      { task: 'world', taskOptions: { game: 'negotiation', legalLine: true }, share: 0.15 },
    ],
    model: { hidden_size: 128, intermediate_size: 384, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 32 },
    vocabSize: 512,
    tokenizerProblems: 3000,
    maxTokens: 256,
    steps: 1200,
    saveAt: 450,
    batch: 32,
    schedule: { lr: 3e-3, warmupSteps: 30, decay: 'cosine', minRatio: 0.05 },
    checkpointEvery: 50,
    saveDtype: 'BF16',
  },
  /**
   * A general world base (ours, an experiment; not shipped): the first stage (read from WORLD_GENERAL_FIRST_MODEL) trained on to copy a
   * made-up game's moves from its prompt. The mix alone did not teach it (after 550 steps its log-probability of each
   * listed move was what its format's frequency gives, about −2.5 a token, copied or not), so as Tango's base learnt to
   * copy words, a stage of made-up games alone comes first (`firstStage`: 200 steps, 70% of them `echo` examples that ask
   * for the whole legal list again, every token of it a copying target); then made-up games keep 60% of the examples
   * (half of them echoes) and the shipped games the rest (TicTacToe 20%, Kuhn Poker and Simple Negotiation 10% each), so
   * that it answers any world game whose prompt lists its legal moves with one of them. Fresh data (seed 1), a cosine
   * from lr 2e-3.
   */
  'world-general': {
    task: 'world-formats',
    taskOptions: { echo: 0.5 },
    firstStage: { steps: 200, batch: 32, taskOptions: { echo: 0.7 } },
    alsoTasks: [
      { task: 'world', taskOptions: { game: 'tictactoe', legalLine: true }, share: 0.2 },
      { task: 'world', taskOptions: { game: 'kuhn-poker', legalLine: true }, share: 0.1 },
      { task: 'world', taskOptions: { game: 'negotiation', legalLine: true }, share: 0.1 },
    ],
    init: WORLD_GENERAL_FIRST_MODEL,
    seed: 1,
    maxTokens: 256,
    steps: 450,
    batch: 32,
    schedule: { lr: 2e-3, warmupSteps: 10, decay: 'cosine', minRatio: 0.05 },
    checkpointEvery: 50,
    saveDtype: 'BF16',
  },
  /**
   * Kuhn Poker's base (models/kuhn-poker, ours): the world base (its tokenizer and weights) further trained on Kuhn
   * positions alone, 30% of whose targets are the Nash player's move (α = 0) and the rest uniformly random. The world
   * base, trained on random moves only, put the same probabilities on its moves whatever its card (within 0.004), and
   * every self-play run from it collapsed to betting and calling blind; this base plays its card, badly (exploitability
   * near 0.3 by design, uniform play's 0.458, Nash's 0), so self-play starts from a policy whose card matters.
   */
  'kuhn-poker': {
    task: 'world',
    taskOptions: { game: 'kuhn-poker', legalLine: true, teacher: 'nash', teacherShare: 0.3 },
    init: 'models/world',
    maxTokens: 256,
    steps: 200,
    batch: 32,
    schedule: { lr: 1e-3, warmupSteps: 10, decay: 'cosine', minRatio: 0.05 },
    checkpointEvery: 50,
    saveDtype: 'BF16',
  },
  /**
   * The calc game's base (models/multiplication, ours): a tokenizer and Tango's 128-wide architecture trained from
   * scratch on the game's prompts (3-digit by 3-digit products, the calculator described). A first stage of 150 steps
   * answers every prompt by a well-formed call to `calc`, the calculator's answer as untrained environment text and the
   * boxed answer copied from it (a 600-step run with a quarter of calls from the start had not learned to copy the
   * result by step 230); then a fifth of the examples call, half of those calls with a wrong opener
   * (TOOL_CALL_MALFORMED), the rest answer with a boxed number and no call. So the base can call, rarely and badly, and
   * cannot multiply: RL has a tool to learn to use.
   */
  multiplication: {
    task: 'multiplication',
    firstStage: { steps: 150, batch: 32, toolCalls: { callRate: 1, malformedRate: 0 } },
    toolCalls: { callRate: 0.2, malformedRate: 0.5 },
    model: { hidden_size: 128, intermediate_size: 384, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 32 },
    vocabSize: 512,
    tokenizerProblems: 3000,
    maxTokens: 256,
    steps: 400,
    batch: 32,
    schedule: { lr: 3e-3, warmupSteps: 30, decay: 'cosine', minRatio: 0.05 },
    checkpointEvery: 50,
    saveDtype: 'BF16',
  },
  /**
   * The first judging stage (ours; the shipped judging base until 2026-12-03): the arithmetic base (same tokenizer and
   * weights to start) further trained on its own slipped solutions, on verifications of them by a judge that checks one
   * column at a time, naming the column's place, and misses each forgotten carry with probability 0.5 (so it starts
   * above chance, flawed in one rule), and on Agon's 'context' challenger prompts answered afresh. 300 steps at lr 1e-3
   * from the warm start (2e-3, the from-scratch rate, damaged the base's digit copying); about 20 minutes on 2 cores.
   */
  'arithmetic-judge-first': JUDGE_FIRST,
  /**
   * The judging base (models/arithmetic-judge, ours), for RL Tango's two roles and Agon's two on arithmetic: the first
   * judging stage (`arithmetic-judge-first`, read from JUDGE_FIRST_MODEL) trained 300 steps more, at half its rate, on
   * a mix with more verifications (60%, challenges 20%, solutions 20%) and fresh data (seed 1). The first stage judged
   * greedily with a recall of 0.96 and a designed miss RL had to fight a shortcut to correct; this one trusts more (it
   * misses more slips), and RL on its verdicts corrects exactly that (docs/default-base.md). About 15 minutes on 2 cores.
   */
  'arithmetic-judge': {
    ...JUDGE_FIRST,
    init: JUDGE_FIRST_MODEL,
    verification: { ...JUDGE_FIRST.verification, share: 0.6 },
    seed: 1,
    schedule: { lr: 5e-4, warmupSteps: 10, decay: 'cosine', minRatio: 0.05 },
  },
};

/**
 * A base of its own for one world game, a user's included (`ludus pretrain --plugin FILE --game NAME`; ours): the
 * general world base further trained on that game's positions (random legal play from seeded deals, a uniformly
 * random legal move as the target), with made-up games' positions kept at 30% so the base still reads any move list.
 * It learns the game's rules and format, not its strategy, which self-play is for.
 */
export function worldGamePreset(game: string): z.input<typeof PretrainConfigSchema> {
  return {
    task: 'world',
    taskOptions: { game },
    alsoTasks: [{ task: 'world-formats', share: 0.3 }],
    init: 'models/world',
    maxTokens: 256,
    steps: 300,
    batch: 32,
    schedule: { lr: 1e-3, warmupSteps: 10, decay: 'cosine', minRatio: 0.05 },
    checkpointEvery: 50,
    saveDtype: 'BF16',
  };
}
