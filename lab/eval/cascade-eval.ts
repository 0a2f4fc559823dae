import type { AnyGame } from '../../core/catalog.ts';
import { fail } from '../../core/errors.ts';
import type { Grader } from '../../core/grading/verdict.ts';
import { lastBoxed } from '../../plugins/graders/math/boxed.ts';
import { BOOTSTRAP_DEFAULT_RESAMPLES } from '../../core/metrics/bootstrap.ts';
import { paperKs, passAtK } from '../../core/metrics/pass-at-k.ts';
import { pairedTest } from './significance.ts';
import type { SequentialProtocol } from '../../core/protocols/sequential.ts';
import { deriveSeed } from '../../core/rng.ts';
import { arenaFor } from '../../engine/match/arena.ts';
import { DecoderPool } from '../../engine/match/decoder-pool.ts';
import { playMatches } from '../../engine/match/play-matches.ts';
import type { PlayedMatch } from '../../engine/match/played-match.ts';
import { PolicyPool } from '../../engine/policies/policy-pool.ts';
import { passAtKEstimates } from './pass-at-k-estimates.ts';
import { perProblemMeans, problemMeanEstimates } from './problem-means.ts';
import type { Estimate, PairedTest, PassAtK } from './report-types.ts';
import type { Split } from '../../core/tasks/task.ts';
import type { GameEvalOptions } from './game-eval-options.ts';

/** The two seats of a draft–challenge cascade (Agon's roles). */
const DRAFTER = 'drafter';
const CHALLENGER = 'challenger';

/**
 * `ludus eval --cascade`: Agon's inference (§4, "Inference and compute"), a draft–challenge game played as a two-stage
 * cascade. One model drafts from the plain prompt (or several draft, for the Mixture-of-Agents baseline), the other
 * answers after reading the draft's summary with its final answer withheld (the game's view), and the last answer is
 * graded. Every stage has the game's per-turn length cap, so a cascade answer costs `generations` capped passes, the
 * budget the single-model baselines are matched to; the summary the challenger reads is extra prefill, reported apart
 * (as the paper reports it: not equalized).
 */
export interface CascadeEvalResult {
  readonly task: string;
  readonly split: Split;
  readonly problems: number;
  /** Cascade answers per problem (n of the pass@k estimator). */
  readonly samples: number;
  /** Model directory (or adapter directory) of each seat. */
  readonly drafter: string;
  readonly challenger: string;
  /** Generations per answer (drafts + the challenge) and each one's token cap: the inference budget. */
  readonly generations: number;
  readonly turn_tokens: number;
  /** pass@k of the final answer (the challenge). */
  readonly pass_at_k: PassAtK;
  /** pass@k of the first draft alone: the drafter as a single model at the same cap. */
  readonly draft_pass_at_k: PassAtK;
  readonly answer_present_rate: Estimate;
  /** Share of answers where every draft was wrong and the challenge right (the conversions the bonus pays for). */
  readonly converted: Estimate;
  /** Share of answers where a draft was right and the challenge wrong. */
  readonly regressed: Estimate;
  /**
   * Where the task's working spells its answer out (`Task.answerInWork`, arithmetic's `Write d` lines): the share of
   * answers whose challenger read, in the withheld summary of the first draft, working that spells that draft's own
   * final answer — the answer withheld in name only. Absent for other tasks and in results made before it was measured.
   */
  readonly summary_reveals?: Estimate;
  /** Mean tokens per answer of each stage: drafting (all drafts), the challenge, and the summary prefill (what the challenger read beyond the plain problem). */
  readonly trace_tokens: { readonly draft: Estimate; readonly challenge: Estimate; readonly summary_prefill: Estimate };
  /**
   * Per problem, in order, out of `samples`: correct challenges, correct first drafts, and conversions (every draft
   * wrong, the challenge right), for paired tests. `converted` is absent in results made before it was recorded.
   */
  readonly per_problem: readonly { readonly id: string; readonly correct: number; readonly draft_correct: number; readonly converted?: number }[];
}

export interface CascadeEvalOptions extends GameEvalOptions {
  /** A sequential draft–challenge game (agon, with its knobs: turn caps, layout, proposals). */
  readonly game: AnyGame;
  /** Who drafts and who challenges: model directories, 'default', or adapter directories (PEFT layout over their recorded base). */
  readonly drafter: string;
  readonly challenger: string;
  readonly grade: Grader;
}

/**
 * Plays `samples` cascades per problem on the same problems and match seeds whoever sits in the seats (so two
 * evaluations pair problem by problem), and estimates pass@k, the stages' trace lengths and the conversions with
 * bootstrap SEs over problems.
 */
export async function evaluateCascade(options: CascadeEvalOptions): Promise<CascadeEvalResult> {
  const { game } = options;
  if (game.protocol.family !== 'sequential' || !game.roles.includes(DRAFTER) || !game.roles.includes(CHALLENGER)) {
    fail('INPUT_INVALID', `game "${game.id}": a cascade needs a sequential game with "${DRAFTER}" and "${CHALLENGER}" roles (agon)`, { game: game.id });
  }
  if (!(Number.isInteger(options.samples) && options.samples >= 1)) fail('INPUT_INVALID', `samples must be a positive integer (got ${options.samples})`);
  const protocol = game.protocol as SequentialProtocol<string, unknown>;
  const last = protocol.turns[protocol.turns.length - 1];
  if (last.role !== CHALLENGER) fail('INPUT_INVALID', `game "${game.id}": the cascade's last turn must be the ${CHALLENGER}'s`, { game: game.id });
  // Two seats, two pool entries, even for self-refinement: the same directory loads once and is shared.
  const pool = await PolicyPool.load(
    [
      { name: DRAFTER, init: options.drafter, trainable: false },
      { name: CHALLENGER, init: options.challenger, trainable: false },
    ],
    { task: options.taskName },
  );
  const seats = { [DRAFTER]: DRAFTER, [CHALLENGER]: CHALLENGER };
  const cascadeGame = { ...game, policies: [DRAFTER, CHALLENGER] } as AnyGame;
  const config = pool.policy(DRAFTER).config;
  const decoders = new DecoderPool(pool, { rows: options.batch * options.samples, maxLen: config.maxPositionEmbeddings, threads: options.threads, device: options.device });
  const arena = arenaFor(cascadeGame, decoders, pool.tokenizer, config.eosTokenIds, { temperature: options.temperature, topP: options.topP, maxNewTokens: 0 }, { chatTemplate: options.chatTemplate });
  const problems = options.task.problems(options.split, options.problems);
  if (problems.length === 0) fail('DATA_INVALID', `task ${options.taskName} has no ${options.split} problems`);
  const played: Answer[][] = [];
  try {
    for (let start = 0; start < problems.length; start += options.batch) {
      const chunk = problems.slice(start, start + options.batch);
      const seeds = { generation: deriveSeed(options.seed, start, 1), schedule: deriveSeed(options.seed, start, 2) };
      const matches = await playMatches(arena, { problems: chunk, copies: options.samples, seats, seeds, label: `cascade/${start}` });
      const reads = readsAnswer(game, options.task.answerInWork);
      chunk.forEach((_, p) => played.push(matches.slice(p * options.samples, (p + 1) * options.samples).map((match) => answerOf(match, options.grade, arena.encodeProblem(match.problem).length, reads))));
      options.onProgress?.(Math.min(start + chunk.length, problems.length), problems.length);
    }
  } finally {
    await decoders.release();
  }
  const resamples = options.bootstrap ?? BOOTSTRAP_DEFAULT_RESAMPLES;
  const n = options.samples;
  const correct = played.map((answers) => answers.filter((a) => a.correct).length);
  const draftCorrect = played.map((answers) => answers.filter((a) => a.draftCorrect).length);
  const converted = played.map((answers) => answers.filter(isConversion).length);
  const ks = paperKs(n);
  const rate = (f: (a: Answer) => number, stream: number) => problemMeanEstimates(perProblemMeans([played], f), resamples, (b) => deriveSeed(options.seed, 9, stream, b)).macro;
  return {
    task: options.taskName,
    split: options.split,
    problems: problems.length,
    samples: n,
    drafter: options.drafter,
    challenger: options.challenger,
    generations: protocol.turns.length,
    turn_tokens: Math.max(...protocol.turns.map((turn) => turn.maxTokens)),
    pass_at_k: passAtKEstimates([correct], n, ks, resamples, deriveSeed(options.seed, 9, 1)).macro,
    draft_pass_at_k: passAtKEstimates([draftCorrect], n, ks, resamples, deriveSeed(options.seed, 9, 2)).macro,
    answer_present_rate: rate((a) => Number(a.answerPresent), 3),
    converted: rate((a) => Number(isConversion(a)), 4),
    regressed: rate((a) => Number(!a.correct && a.anyDraftCorrect), 5),
    ...(options.task.answerInWork ? { summary_reveals: rate((a) => Number(a.summaryReveals), 10) } : {}),
    trace_tokens: { draft: rate((a) => a.draftTokens, 6), challenge: rate((a) => a.challengeTokens, 7), summary_prefill: rate((a) => a.prefillTokens, 8) },
    per_problem: problems.map((problem, p) => ({ id: problem.id, correct: correct[p], draft_correct: draftCorrect[p], converted: converted[p] })),
  };
}

/** Every draft wrong and the challenge right: what the conversion bonus pays for. */
const isConversion = (a: Answer): boolean => a.correct && !a.anyDraftCorrect;

interface Answer {
  correct: boolean;
  answerPresent: boolean;
  draftCorrect: boolean;
  anyDraftCorrect: boolean;
  draftTokens: number;
  challengeTokens: number;
  prefillTokens: number;
  summaryReveals: boolean;
}

/**
 * Whether the challenger of a played cascade could read the first draft's final answer off the working in what it saw
 * of that draft (the game's view for the challenger: the withheld summary); always false where the task cannot say.
 */
function readsAnswer(game: AnyGame, answerInWork: ((text: string) => string | null) | undefined) {
  return (match: PlayedMatch): boolean => {
    if (!answerInWork) return false;
    const draft = match.turns.find((turn) => turn.role === DRAFTER);
    const withheld = draft ? lastBoxed(draft.text) : undefined;
    if (!draft || withheld === undefined) return false;
    const state = { matchId: match.matchId, seed: 0, problem: match.problem, transcript: match.turns, finished: false };
    const seen = game.view(state, CHALLENGER).transcript.find((turn) => turn.turn === draft.turn)?.text ?? '';
    return answerInWork(seen) === withheld;
  };
}

/** One cascade, graded stage by stage from the turns' own text (whatever the game's reward rule pays). */
function answerOf(match: PlayedMatch, grade: Grader, problemTokens: number, reads: (match: PlayedMatch) => boolean): Answer {
  const drafts = match.turns.filter((turn) => turn.role === DRAFTER);
  const challenge = match.turns[match.turns.length - 1];
  const verdict = grade(match.problem.answer, challenge.text);
  const draftVerdicts = drafts.map((draft) => grade(match.problem.answer, draft.text));
  return {
    correct: verdict.correct,
    answerPresent: verdict.answer_present,
    draftCorrect: draftVerdicts[0]?.correct ?? false,
    anyDraftCorrect: draftVerdicts.some((v) => v.correct),
    draftTokens: drafts.reduce((a, draft) => a + draft.tokens.length, 0),
    challengeTokens: challenge.tokens.length,
    prefillTokens: Math.max(0, challenge.promptIds.length - problemTokens),
    summaryReveals: reads(match),
  };
}

/**
 * A paired one-sided t-test (H1: `model` is higher) on per-problem unbiased pass@k (the other's at `otherK`: pass@2 of
 * a one-pass model spends the cascade's two generations), pairing problems by id: a cascade against a single model or
 * another cascade (each given as correct counts out of its own n).
 */
export function pairedPassTest(
  model: { readonly n: number; readonly perProblem: readonly { readonly id: string; readonly correct: number }[] },
  other: { readonly n: number; readonly perProblem: readonly { readonly id: string; readonly correct: number }[] },
  k = 1,
  otherK = k,
): PairedTest {
  const others = new Map(other.perProblem.map((p) => [p.id, p.correct]));
  const pairs = model.perProblem.flatMap((p) => {
    const theirs = others.get(p.id);
    return theirs === undefined ? [] : [[passAtK(model.n, p.correct, k), passAtK(other.n, theirs, otherK)] as const];
  });
  if (pairs.length < 2) fail('INPUT_INVALID', `a paired test needs at least 2 shared problems (got ${pairs.length})`);
  return pairedTest(otherK === k ? `pass@${k}` : `pass@${k} vs pass@${otherK}`, 'greater', pairs.map(([a]) => a), pairs.map(([, b]) => b));
}
