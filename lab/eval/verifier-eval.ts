import type { AnyGame } from '../../core/catalog.ts';
import { fail } from '../../core/errors.ts';
import { judgeAgreement, processBenchF1, type ProcessBenchCounts } from '../../core/game/judge-agreement.ts';
import { GRADER_JUDGE } from '../../core/grading/verdict.ts';
import { BOOTSTRAP_DEFAULT_RESAMPLES, bootstrapEach } from '../../core/metrics/bootstrap.ts';
import { addConfusion, emptyConfusion, f1, precision, recall, type Confusion } from '../../core/metrics/binary-f1.ts';
import { deriveSeed } from '../../core/rng.ts';
import { arenaFor } from '../../engine/match/arena.ts';
import { DecoderPool } from '../../engine/match/decoder-pool.ts';
import { playMatches } from '../../engine/match/play-matches.ts';
import type { PlayedMatch } from '../../engine/match/played-match.ts';
import { PolicyPool } from '../../engine/policies/policy-pool.ts';
import type { Split } from '../../core/tasks/task.ts';
import type { GameEvalOptions } from './game-eval-options.ts';

/** An estimate with its bootstrap SE over problems; null where the statistic is undefined on the data (no positive). */
export type Estimate = { readonly value: number; readonly se: number } | null;

/** The verifier axes (RL Tango §4.2–4.3, Figure 4): how a judging role's verdicts agree with the gold labels. */
export interface VerifierEvalResult {
  readonly task: string;
  readonly split: Split;
  readonly problems: number;
  /**
   * Matches per problem: one solution judged this many times, or, with a greedy judge (whose verifications of one
   * solution are all the same), this many solutions judged once each.
   */
  readonly samples: number;
  /** The solutions' sampling temperature and the judge's (0: greedy). */
  readonly temperature: number;
  readonly judge_temperature: number;
  /** Model directories by the game's policy names (who wrote the solutions, who judged them). */
  readonly policies: Readonly<Record<string, string>>;
  /** Share of judged solutions that were right: the class balance. */
  readonly solution_accuracy: Estimate;
  /** Final verdicts against the grader ("positive" = correct). */
  readonly outcome_precision: Estimate;
  readonly outcome_recall: Estimate;
  readonly outcome_f1: Estimate;
  /** Step verdicts against the gold-path step labels, where the task has them. */
  readonly step_f1: Estimate;
  /**
   * ProcessBench's F1 (RL Tango Table 3): the harmonic mean of the accuracy on erroneous solutions (the first wrong
   * step found; without step labels, called incorrect) and on correct ones (no step flagged; called correct).
   */
  readonly processbench_f1: Estimate;
  /** Share of verdicts the judge wrote readably (a final verdict; as many step verdicts as steps). */
  readonly readable: Estimate;
  readonly counts: { readonly outcome: Confusion; readonly steps: Confusion; readonly processBench: ProcessBenchCounts };
  /** Per problem, in order: the share of its final verdicts and of its step verdicts that were right (for paired tests), and of its judged solutions. */
  readonly per_problem: readonly { readonly id: string; readonly outcome_accuracy: number; readonly step_accuracy: number | null; readonly solution_accuracy: number }[];
}

export interface VerifierEvalOptions extends GameEvalOptions {
  /** A generator–verifier game (Tango); its first step's seats decide which policy plays which role. */
  readonly game: AnyGame;
  /** The role whose verdicts are scored. */
  readonly judge: string;
  /** Model directory of each of the game's policies. */
  readonly policies: Readonly<Record<string, string>>;
}

/**
 * Plays the game on `problems` problems of the split, one solution per problem judged `samples` times (the matches of a
 * problem share the solution's turn, as Tango's verifier steps do), and scores the judge's verdicts against the
 * grader's: outcome precision, recall and F1, step F1, readable share, with bootstrap SEs over problems.
 */
export async function evaluateVerifier(options: VerifierEvalOptions): Promise<VerifierEvalResult> {
  const { game } = options;
  if (!game.roles.includes(options.judge)) fail('INPUT_INVALID', `game "${game.id}" has no role "${options.judge}" to score as the judge`, { judge: options.judge });
  if (game.protocol.family !== 'sequential') fail('INPUT_INVALID', `game "${game.id}": the verifier axes need a sequential generator–verifier game`, { game: game.id });
  const pool = await PolicyPool.load(
    game.policies.map((name) => ({ name, init: options.policies[name] ?? fail('INPUT_INVALID', `no model for policy "${name}" of game "${game.id}"`, { policy: name }), trainable: false })),
    { task: options.taskName },
  );
  const first = pool.policy(game.policies[0]);
  const stopTokens = first.config.eosTokenIds;
  const decoders = new DecoderPool(pool, { rows: options.batch * options.samples, maxLen: first.config.maxPositionEmbeddings, threads: options.threads, device: options.device });
  const judgeTemperature = options.judgeTemperature ?? options.temperature;
  const sampling = { temperature: options.temperature, topP: options.topP, maxNewTokens: 0, roleTemperatures: { [options.judge]: judgeTemperature } };
  const arena = arenaFor(game, decoders, pool.tokenizer, stopTokens, sampling, { chatTemplate: options.chatTemplate });
  const problems = options.task.problems(options.split, options.problems);
  if (problems.length === 0) fail('DATA_INVALID', `task ${options.taskName} has no ${options.split} problems`);
  const perProblem: { outcome: Confusion; steps: Confusion; processBench: ProcessBenchCounts; judged: number; readable: number; correct: number }[] = [];
  try {
    for (let start = 0; start < problems.length; start += options.batch) {
      const chunk = problems.slice(start, start + options.batch);
      const seeds = { generation: deriveSeed(options.seed, start, 1), schedule: deriveSeed(options.seed, start, 2) };
      const matches = await playMatches(arena, { problems: chunk, copies: options.samples, seats: game.rotation.at(0).seats, seeds, label: `verify/${start}`, sharedTurns: judgeTemperature === 0 ? 0 : 1 });
      chunk.forEach((_, p) => perProblem.push(problemCounts(matches.slice(p * options.samples, (p + 1) * options.samples), options.judge)));
      options.onProgress?.(Math.min(start + chunk.length, problems.length), problems.length);
    }
  } finally {
    await decoders.release();
  }
  const statistics = (indices: Int32Array) => {
    const outcome = emptyConfusion();
    const steps = emptyConfusion();
    let judged = 0;
    let readable = 0;
    let correct = 0;
    const processBench = emptyProcessBench();
    for (const i of indices) {
      addConfusion(outcome, perProblem[i].outcome);
      addConfusion(steps, perProblem[i].steps);
      addProcessBench(processBench, perProblem[i].processBench);
      judged += perProblem[i].judged;
      readable += perProblem[i].readable;
      correct += perProblem[i].correct;
    }
    return [correct / indices.length, precision(outcome), recall(outcome), f1(outcome), f1(steps), judged === 0 ? null : readable / judged, processBenchF1(processBench)].map((x) => x ?? Number.NaN);
  };
  const estimates = bootstrapEach([perProblem.length], ([indices]) => statistics(indices), { resamples: options.bootstrap ?? BOOTSTRAP_DEFAULT_RESAMPLES, seed: deriveSeed(options.seed, 3), skipUndefined: true });
  const [solution, outcomePrecision, outcomeRecall, outcomeF1, stepF1, readable, processBenchEstimate] = estimates.map((e) => (Number.isNaN(e.value) ? null : e));
  const totals = { outcome: emptyConfusion(), steps: emptyConfusion(), processBench: emptyProcessBench() };
  for (const counts of perProblem) {
    addConfusion(totals.outcome, counts.outcome);
    addConfusion(totals.steps, counts.steps);
    addProcessBench(totals.processBench, counts.processBench);
  }
  return {
    task: options.taskName,
    split: options.split,
    problems: problems.length,
    samples: options.samples,
    temperature: options.temperature,
    judge_temperature: judgeTemperature,
    policies: { ...options.policies },
    solution_accuracy: solution,
    outcome_precision: outcomePrecision,
    outcome_recall: outcomeRecall,
    outcome_f1: outcomeF1,
    step_f1: totals.steps.tp + totals.steps.fp + totals.steps.fn + totals.steps.tn > 0 ? stepF1 : null,
    processbench_f1: processBenchEstimate,
    readable,
    counts: totals,
    per_problem: perProblem.map((counts, i) => ({ id: problems[i].id, outcome_accuracy: accuracy(counts.outcome) ?? 0, step_accuracy: accuracy(counts.steps), solution_accuracy: counts.correct })),
  };
}

const accuracy = (c: Confusion) => (c.tp + c.fp + c.fn + c.tn === 0 ? null : (c.tp + c.tn) / (c.tp + c.fp + c.fn + c.tn));

/** One problem's matches (one solution judged several times, or several judged once): the judge's confusion counts and the share of right solutions. */
function problemCounts(matches: readonly PlayedMatch[], judge: string) {
  const agreement = judgeAgreement(matches.map((match) => match.rewards.verdicts ?? []), judge);
  const right = matches.filter((match) => match.rewards.verdicts?.find((v) => v.judge === GRADER_JUDGE && v.step === undefined)?.correct === true).length;
  return { outcome: agreement.outcome, steps: agreement.steps, processBench: agreement.processBench, judged: agreement.judged, readable: agreement.readable, correct: matches.length === 0 ? 0 : right / matches.length };
}

const emptyProcessBench = () => ({ erroneous: 0, erroneousRight: 0, correct: 0, correctRight: 0 });

function addProcessBench(into: { erroneous: number; erroneousRight: number; correct: number; correctRight: number }, other: ProcessBenchCounts): void {
  into.erroneous += other.erroneous;
  into.erroneousRight += other.erroneousRight;
  into.correct += other.correct;
  into.correctRight += other.correctRight;
}
