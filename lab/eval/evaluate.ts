import { fail, present } from '../../core/errors.ts';
import { BOOTSTRAP_DEFAULT_RESAMPLES, bootstrapMean } from '../../core/metrics/bootstrap.ts';
import { paperKs } from '../../core/metrics/pass-at-k.ts';
import { deriveSeed } from '../../core/rng.ts';
import { STEP_HANDOFF_DEFAULT_P } from '../../core/schedules/step-handoff.ts';
import type { DisplacedRanking } from '../../core/metrics/token-drift.ts';
import { assertSharedTokenizer, type Policy } from '../../native/runtime/policy.ts';
import { Scorer } from '../../native/runtime/scorer.ts';
import type { Problem, Split, Task } from '../../core/tasks/task.ts';
import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import type { ChatTemplateMode } from '../../plugins/tokenizers/prompt-text.ts';
import { stepBoundaryIds } from '../../plugins/tokenizers/step-boundary.ts';
import { DRIFT_DEFAULTS, driftFrom, problemCounts } from './drift.ts';
import { seniorShare, stepHandoffSchedule, teamStats, wordHandoffSchedule, type TeamStatistic } from './handoff.ts';
import { WORD_HANDOFF_DEFAULTS } from '../../core/protocols/co-decoding.ts';
import { wordBoundary } from '../../plugins/tokenizers/word-boundary.ts';
import { scoreLegibility } from './legibility.ts';
import { passAtKEstimates } from './pass-at-k-estimates.ts';
import { perProblemMeans, problemMeanEstimates } from './problem-means.ts';
import { EVAL_REPORT_VERSION, type EvalAxis, type EvalConfig, type EvalReport, type HandoffResult, type HandoffVariant, type LegibilityResult, type ProblemStats } from './report-types.ts';
import { sampleRollouts, type GradedRollout, type SamplingSettings } from './sample-rollouts.ts';
import type { Grader } from '../../core/grading/verdict.ts';

/** A model taking part in an evaluation, with the id the report names it by. */
export interface EvalModel {
  id: string;
  policy: Policy;
}

export interface EvalBenchmark {
  name: string;
  task: Task;
  split: Split;
  /** This benchmark's grader, where it differs from the evaluation's (`EvalOptions.grade`). */
  grade?: Grader;
}

/** Defaults of `ludus eval`; the tandem paper's values where it names one. */
export const EVAL_DEFAULTS = {
  axes: ['capability'] as EvalAxis[],
  samples: 8,
  problems: 200,
  temperature: 1,
  /** The verifier axes' judge decodes greedily, as RL Tango evaluates every model (§4.1), on solutions sampled at `temperature`. */
  judgeTemperature: 0,
  topP: 1,
  maxNewTokens: 256,
  batch: 64,
  /** Instruct models are prompted through their chat template (the paper prompts Qwen3-4B-Instruct so). */
  chatTemplate: 'on' as ChatTemplateMode,
  /** 10,000 resamples of problems (§4.1, Table 1). */
  bootstrap: BOOTSTRAP_DEFAULT_RESAMPLES,
  /** Strict round-robin (§4.3) and Bernoulli(0.5) (appendix B.3). */
  handoffVariants: ['alternate', 'bernoulli'] as HandoffVariant[],
  handoffP: STEP_HANDOFF_DEFAULT_P,
  /** Responses per problem the junior reads for legibility (the first of the solo samples). */
  legibilitySamples: 4,
  /** Sequences teacher-forced together for legibility. */
  scoreBatch: 8,
} as const;

export interface EvalOptions extends SamplingSettings {
  model: EvalModel;
  /** Needed by handoff, drift and legibility. */
  junior?: EvalModel;
  /** Drift's displaced-token reference (e.g. the GRPO senior when the model is TRL); the junior when absent. */
  reference?: EvalModel;
  tokenizer: TextTokenizer;
  benchmarks: EvalBenchmark[];
  axes: EvalAxis[];
  problems: number;
  samples: number;
  grade: Grader;
  seed: number;
  /** `on` (default): through the tokenizer's chat template where it has one; `off`: the task's plain prompt. */
  chatTemplate?: ChatTemplateMode;
  bootstrap?: number;
  handoffVariants?: HandoffVariant[];
  handoffP?: number;
  legibilitySamples?: number;
  scoreBatch?: number;
  displacedTop?: number;
  displacedRanking?: DisplacedRanking;
  overEmittedTop?: number;
  overEmittedMinCount?: number;
  driftSmoothing?: number;
  driftMinJuniorCount?: number;
  onProgress?: (label: string, done: number, total: number) => void;
}

/** Streams for the seeds of one evaluation: the same problems get the same coins whichever model is evaluated. */
const STREAM = { solo: 1, junior: 2, reference: 3, handoff: 4, bootstrap: 5 } as const;

/** Bootstrap sub-streams of the handoff statistics (after pass@k 1-2, drift 3, legibility 4-5, capability answer-present 7). */
const TEAM_STAT_STREAM: Record<TeamStatistic, number> = { senior_share: 6, answer_present_rate: 8, handoffs_per_rollout: 9 };

/**
 * Runs the requested axes of the tandem paper's evaluation (§4–5, appendices B–C) for one model on one or more
 * benchmarks and returns one EvalReport: solo capability, reasoning-step handoff robustness with a junior, drift
 * of the marginal token distribution from the junior's, and the junior's legibility of the model's chain of
 * thought, each with bootstrap SEs over problems (stratified by benchmark for macro averages).
 */
export async function evaluate(options: EvalOptions): Promise<EvalReport> {
  const started = Date.now();
  const axes = [...new Set(options.axes)];
  if (axes.length === 0) fail('INPUT_INVALID', 'no evaluation axis requested');
  if (options.benchmarks.length === 0) fail('INPUT_INVALID', 'no benchmark to evaluate on');
  const names = options.benchmarks.map((b) => b.name);
  if (new Set(names).size !== names.length) fail('INPUT_INVALID', `a benchmark is named twice: ${names.join(', ')}`);
  if (!(Number.isInteger(options.samples) && options.samples >= 1)) fail('INPUT_INVALID', `samples must be a positive integer (got ${options.samples})`);
  if (!(Number.isInteger(options.problems) && options.problems >= 1)) fail('INPUT_INVALID', `problems must be a positive integer (got ${options.problems})`);
  const needsJunior = axes.some((a) => a !== 'capability');
  const junior = needsJunior ? (options.junior ?? fail('INPUT_INVALID', `axes ${axes.filter((a) => a !== 'capability').join(', ')} need a junior model`)) : undefined;
  if (junior) assertSharedTokenizer([options.model.policy, junior.policy]);
  const reference = axes.includes('drift') && options.reference && options.reference.id !== junior?.id ? options.reference : undefined;
  if (reference) assertSharedTokenizer([options.model.policy, reference.policy]);

  const displacedRanking = options.displacedRanking ?? DRIFT_DEFAULTS.displacedRanking;
  const overEmittedMinCount = options.overEmittedMinCount ?? DRIFT_DEFAULTS.overEmittedMinCount;
  const legibilitySamples = Math.min(options.legibilitySamples ?? EVAL_DEFAULTS.legibilitySamples, options.samples);
  const config: EvalConfig = {
    axes,
    samples: options.samples,
    problems: options.problems,
    temperature: options.temperature,
    top_p: options.topP,
    max_new_tokens: options.maxNewTokens,
    batch: options.batch,
    chat_template: options.chatTemplate ?? EVAL_DEFAULTS.chatTemplate,
    ks: paperKs(options.samples),
    bootstrap: options.bootstrap ?? EVAL_DEFAULTS.bootstrap,
    handoff_variants: options.handoffVariants ?? [...EVAL_DEFAULTS.handoffVariants],
    handoff_p: options.handoffP ?? EVAL_DEFAULTS.handoffP,
    displaced_top: options.displacedTop ?? DRIFT_DEFAULTS.displacedTop,
    displaced_ranking: displacedRanking,
    over_emitted_top: options.overEmittedTop ?? DRIFT_DEFAULTS.overEmittedTop,
    over_emitted_min_count: overEmittedMinCount,
    drift_smoothing: options.driftSmoothing ?? DRIFT_DEFAULTS.smoothing,
    drift_min_junior_count: options.driftMinJuniorCount ?? DRIFT_DEFAULTS.minJuniorCount,
    legibility_samples: legibilitySamples,
  };
  const problemsOf: Problem[][] = options.benchmarks.map((b) => b.task.problems(b.split, options.problems));
  for (const [b, problems] of problemsOf.entries()) if (problems.length === 0) fail('DATA_INVALID', `benchmark ${names[b]} has no ${options.benchmarks[b].split} problems`);
  const perProblem: ProblemStats[][] = problemsOf.map((problems, b) => problems.map((p) => ({ benchmark: names[b], id: p.id })));
  const sampling: SamplingSettings = {
    temperature: options.temperature,
    topP: options.topP,
    maxNewTokens: options.maxNewTokens,
    stopTokens: options.stopTokens,
    batch: options.batch,
    threads: options.threads,
    device: options.device,
  };
  // Benchmarks one after another: one decoder alive at a time.
  const sampleSolo = async (who: EvalModel, stream: number, label: string): Promise<GradedRollout[][][]> => {
    const out: GradedRollout[][][] = [];
    for (const [b, problems] of problemsOf.entries()) {
      out.push(
        await sampleRollouts({
          ...sampling,
          policies: [who.policy],
          tokenizer: options.tokenizer,
          chatTemplate: config.chat_template,
          problems,
          samples: options.samples,
          grade: options.benchmarks[b].grade ?? options.grade,
          seed: deriveSeed(options.seed, stream, b),
          onProgress: (done, total) => options.onProgress?.(`${label} ${names[b]}`, done, total),
        }),
      );
    }
    return out;
  };

  const report: EvalReport = {
    version: EVAL_REPORT_VERSION,
    model: options.model.id,
    ...(junior ? { junior: junior.id } : {}),
    ...(reference ? { reference: reference.id } : {}),
    benchmarks: options.benchmarks.map((b, i) => ({ name: b.name, split: b.split, problems: problemsOf[i].length })),
    per_problem: [],
    config,
    seed: options.seed,
    created: '',
    wall_seconds: 0,
  };
  const resamples = config.bootstrap;
  const bootSeed = (...parts: number[]) => deriveSeed(options.seed, STREAM.bootstrap, ...parts);

  const solo = axes.some((a) => a === 'capability' || a === 'drift' || a === 'legibility') ? await sampleSolo(options.model, STREAM.solo, 'solo') : undefined;
  const soloRollouts = () => present(solo, 'the solo rollouts of the capability, drift and legibility axes');
  const juniorModel = () => present(junior, 'the junior model of the handoff, drift and legibility axes');

  if (axes.includes('capability')) {
    const correct = soloRollouts().map((problems) => problems.map((rollouts) => rollouts.filter((r) => r.correct).length));
    const est = passAtKEstimates(correct, options.samples, config.ks, resamples, bootSeed(1));
    const present = problemMeanEstimates(perProblemMeans(soloRollouts(), (r) => (r.answerPresent ? 1 : 0)), resamples, (b) => bootSeed(7, b));
    report.capability = {
      samples: options.samples,
      per_benchmark: Object.fromEntries(
        names.map((name, b) => {
          const all = soloRollouts()[b].flat();
          return [
            name,
            {
              pass_at_k: est.per_benchmark[b],
              answer_present_rate: all.filter((r) => r.answerPresent).length / all.length,
              answer_present_rate_se: present.per_benchmark[b].se,
              mean_response_tokens: all.reduce((a, r) => a + r.tokens.length, 0) / all.length,
            },
          ];
        }),
      ),
      macro: { pass_at_k: est.macro },
    };
    correct.forEach((counts, b) => counts.forEach((c, p) => (perProblem[b][p].capability_correct = c)));
  }

  if (axes.includes('handoff')) {
    const stepBoundary = stepBoundaryIds(options.tokenizer);
    const wordBoundaryIds = Array.from(wordBoundary(options.tokenizer).ids);
    if (stepBoundary.length === 0 && config.handoff_variants.some((v) => v !== 'word')) fail('TOKENIZER_INVALID', 'handoff: no token of the tokenizer contains "\\n\\n", so there is no step end to hand off at');
    report.handoff = [];
    for (const [v, variant] of config.handoff_variants.entries()) {
      const boundary = variant === 'word' ? wordBoundaryIds : stepBoundary;
      const schedule = variant === 'word' ? wordHandoffSchedule(config.handoff_p, WORD_HANDOFF_DEFAULTS.K, boundary) : stepHandoffSchedule(variant, config.handoff_p, boundary);
      const team: GradedRollout[][][] = [];
      for (const [b, problems] of problemsOf.entries()) {
        team.push(
          await sampleRollouts({
            ...sampling,
            policies: [options.model.policy, juniorModel().policy],
            tokenizer: options.tokenizer,
            chatTemplate: config.chat_template,
            problems,
            samples: options.samples,
            grade: options.benchmarks[b].grade ?? options.grade,
            seed: deriveSeed(options.seed, STREAM.handoff, v, b),
            schedule,
            onProgress: (done, total) => options.onProgress?.(`handoff ${variant} ${names[b]}`, done, total),
          }),
        );
      }
      const correct = team.map((problems) => problems.map((rollouts) => rollouts.filter((r) => r.correct).length));
      const est = passAtKEstimates(correct, options.samples, config.ks, resamples, bootSeed(2, v));
      // Senior share, handoffs and answer-present rate, each with its SE over problems (the senior share keeps stream 6).
      const stats = teamStats(team, names, resamples, (statistic, b) => bootSeed(TEAM_STAT_STREAM[statistic], v, b));
      const result: HandoffResult = {
        variant,
        p: config.handoff_p,
        samples: options.samples,
        boundary_tokens: boundary.length,
        per_benchmark: Object.fromEntries(names.map((name, b) => [name, { pass_at_k: est.per_benchmark[b], ...stats.per_benchmark[name] }])),
        macro: { pass_at_k: est.macro, ...stats.macro },
      };
      report.handoff.push(result);
      team.forEach((problems, b) =>
        problems.forEach((rollouts, p) => {
          perProblem[b][p].handoff = { ...perProblem[b][p].handoff, [variant]: { correct: correct[b][p], senior_share: mean(rollouts.map(seniorShare)) } };
        }),
      );
    }
  }

  if (axes.includes('drift')) {
    const exclude = new Set(options.stopTokens);
    const countsOf = (rollouts: GradedRollout[][][]) => rollouts.map((problems) => problems.map((rs) => problemCounts(rs.map((r) => r.tokens), exclude)));
    const juniorSolo = await sampleSolo(juniorModel(), STREAM.junior, 'junior');
    const referenceSolo = reference ? await sampleSolo(reference, STREAM.reference, 'reference') : undefined;
    report.drift = driftFrom({
      vocabSize: options.model.policy.config.vocabSize,
      model: countsOf(soloRollouts()),
      junior: countsOf(juniorSolo),
      ...(referenceSolo ? { reference: countsOf(referenceSolo) } : {}),
      decode: (id) => options.tokenizer.decode([id]),
      smoothing: config.drift_smoothing,
      minJuniorCount: config.drift_min_junior_count,
      displacedTop: config.displaced_top,
      displacedRanking,
      overEmittedTop: config.over_emitted_top,
      overEmittedMinCount,
      resamples,
      seed: bootSeed(3),
    });
  }

  if (axes.includes('legibility')) {
    const [senior, reader] = [await Scorer.create(options.model.policy, { threads: options.threads, device: options.device }), await Scorer.create(juniorModel().policy, { threads: options.threads, device: options.device })];
    try {
      const ceStrata: number[][] = [];
      const overlapStrata: number[][] = [];
      const per_benchmark: LegibilityResult['per_benchmark'] = {};
      for (const [b, problems] of soloRollouts().entries()) {
        const responses = problems.flatMap((rollouts, p) => rollouts.slice(0, legibilitySamples).map((r) => ({ p, prompt: r.prompt, tokens: r.tokens })));
        const scored = await scoreLegibility(senior, reader, responses, options.stopTokens, options.scoreBatch ?? EVAL_DEFAULTS.scoreBatch);
        options.onProgress?.(`legibility ${names[b]}`, responses.length, responses.length);
        const sums = problems.map(() => ({ ce: 0, overlap: 0, positions: 0 }));
        scored.forEach((s, i) => {
          const acc = sums[responses[i].p];
          acc.ce += s.crossEntropySum;
          acc.overlap += s.overlapSum;
          acc.positions += s.positions;
        });
        // Per-problem means over the problem's scored positions; problems whose responses were all empty drop out.
        const kept = sums.map((s, p) => ({ s, p })).filter(({ s }) => s.positions > 0);
        if (kept.length === 0) fail('DATA_INVALID', `legibility on ${names[b]}: every response is empty, nothing to score`);
        for (const { s, p } of kept) Object.assign(perProblem[b][p], { cross_entropy: s.ce / s.positions, overlap: s.overlap / s.positions, legibility_tokens: s.positions });
        const ce = kept.map(({ s }) => s.ce / s.positions);
        const ov = kept.map(({ s }) => s.overlap / s.positions);
        ceStrata.push(ce);
        overlapStrata.push(ov);
        per_benchmark[names[b]] = {
          cross_entropy: bootstrapMean([ce], { resamples, seed: bootSeed(4, b) }),
          overlap: bootstrapMean([ov], { resamples, seed: bootSeed(5, b) }),
          tokens: kept.reduce((a, { s }) => a + s.positions, 0),
        };
      }
      report.legibility = {
        per_benchmark,
        macro:
          names.length === 1
            ? { cross_entropy: per_benchmark[names[0]].cross_entropy, overlap: per_benchmark[names[0]].overlap }
            : { cross_entropy: bootstrapMean(ceStrata, { resamples, seed: bootSeed(4, -1) }), overlap: bootstrapMean(overlapStrata, { resamples, seed: bootSeed(5, -1) }) },
      };
    } finally {
      await senior.release();
      await reader.release();
    }
  }

  report.per_problem = perProblem.flat();
  report.created = new Date().toISOString();
  report.wall_seconds = (Date.now() - started) / 1000;
  return report;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, v) => a + v, 0) / values.length;
}
