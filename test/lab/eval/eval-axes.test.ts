import { describe, expect, it } from 'vitest';
import { deriveSeed } from '../../../core/rng.ts';
import { klDivergence, distributionFromCounts } from '../../../core/metrics/token-drift.ts';
import { Scorer } from '../../../native/runtime/scorer.ts';
import { initWeights, presetConfig } from '../../../native/model/presets.ts';
import { driftFrom, problemCounts } from '../../../lab/eval/drift.ts';
import { evaluate, type EvalOptions } from '../../../lab/eval/evaluate.ts';
import { handoffCount, meanStd, seniorShare, stepHandoffSchedule, teamStats, type TeamStatistic } from '../../../lab/eval/handoff.ts';
import { scoreLegibility } from '../../../lab/eval/legibility.ts';
import { sampleRollouts } from '../../../lab/eval/sample-rollouts.ts';
import { compareReports } from '../../../lab/eval/significance.ts';
import { wordBoundary } from '../../../plugins/tokenizers/word-boundary.ts';
import type { Grader } from '../../../core/grading/verdict.ts';
import { arithmeticTask } from '../../../plugins/tasks/arithmetic/arithmetic-task.ts';
import { trainBpe } from '../../../plugins/tokenizers/bpe-trainer.ts';
import { tokenizerFromJson } from '../../../plugins/tokenizers/hf-tokenizer.ts';

const task = arithmeticTask({ maxDigits: 2 });
const tokenizer = tokenizerFromJson(trainBpe(task.problems('train', 100).map((p) => p.prompt + p.solution), { vocabSize: 300 }));
const config = presetConfig('qwen3-micro', { vocab_size: tokenizer.vocabSize });
const policyOf = (seed: number, name: string) => ({ name, config, weights: initWeights(config, seed, 0.2), tokenizerHash: tokenizer.hash });
const senior = policyOf(3, 'senior');
const junior = policyOf(5, 'junior');
const never: Grader = () => ({ answer_present: false, correct: false });
const sampling = { temperature: 1, topP: 1, maxNewTokens: 24, stopTokens: [0], batch: 8, threads: 1 };

describe('step handoff at pretend step ends', () => {
  // A random model rarely writes "\n\n"; declaring the lower half of the vocabulary step ends makes handoffs frequent.
  const boundary = Array.from({ length: 150 }, (_, i) => i);
  const ends = new Set(boundary);
  const run = (variant: 'alternate' | 'bernoulli') =>
    sampleRollouts({ ...sampling, policies: [senior, junior], tokenizer, problems: task.problems('test', 4), samples: 4, grade: never, seed: 11, schedule: stepHandoffSchedule(variant, 0.5, boundary) });

  it('should switch author after every step end and only there under strict alternation', async () => {
    const rollouts = (await run('alternate')).flat();
    let switches = 0;
    for (const r of rollouts) {
      for (let t = 0; t + 1 < r.tokens.length; t++) {
        expect(r.authors[t + 1] !== r.authors[t]).toBe(ends.has(r.tokens[t]));
        switches += r.authors[t + 1] !== r.authors[t] ? 1 : 0;
      }
    }
    expect(switches).toBeGreaterThan(10);
    expect(new Set(rollouts.map((r) => r.authors[0]))).toEqual(new Set([0, 1]));
  });

  it('should redraw only at step ends under Bernoulli(0.5), sometimes keeping the author', async () => {
    const rollouts = (await run('bernoulli')).flat();
    let kept = 0;
    let switched = 0;
    for (const r of rollouts) {
      for (let t = 0; t + 1 < r.tokens.length; t++) {
        if (!ends.has(r.tokens[t])) expect(r.authors[t + 1]).toBe(r.authors[t]);
        else if (r.authors[t + 1] === r.authors[t]) kept++;
        else switched++;
      }
    }
    expect(kept).toBeGreaterThan(3);
    expect(switched).toBeGreaterThan(3);
    const shares = rollouts.map(seniorShare);
    expect(shares.some((s) => s > 0 && s < 1)).toBe(true);
  });

  it('should count senior share, handoffs and their spread by hand', () => {
    expect(seniorShare({ authors: [0, 0, 1, 1, 1, 0] })).toBe(0.5);
    expect(handoffCount({ authors: [0, 0, 1, 1, 1, 0] })).toBe(2);
    expect(meanStd([0.25, 0.75])).toEqual({ mean: 0.5, std: 0.25 });
  });
});

describe('teamStats', () => {
  // Benchmark a, two problems of two rollouts:
  //   problem 0: [0,1,0] (2 handoffs, share 2/3, answer) and [0,0] (0, share 1, answer) -> means: handoffs 1, share 5/6, present 1
  //   problem 1: [1,0,1,0] (3, share 1/2, none) and [1,1] (0, share 0, none)         -> means: handoffs 1.5, share 1/4, present 0
  // Benchmark b, three problems of one rollout: handoffs 1, 3, 5, share 1/2 each, all answered.
  // Exact bootstrap SE of a mean of n per-problem values = sqrt(plug-in variance / n).
  const r = (authors: number[], answerPresent: boolean) => ({ authors, answerPresent });
  const team = [
    [[r([0, 1, 0], true), r([0, 0], true)], [r([1, 0, 1, 0], false), r([1, 1], false)]],
    [[r([0, 1], true)], [r([0, 1, 0, 1], true)], [r([0, 1, 0, 1, 0, 1], true)]],
  ];
  const seeds: Array<[TeamStatistic, number]> = [];
  const stats = teamStats(team, ['a', 'b'], 10_000, (statistic, b) => {
    seeds.push([statistic, b]);
    return seeds.length;
  });
  const seA = (values: number[]) => Math.sqrt(values.reduce((acc, v) => acc + (v - values.reduce((x, y) => x + y, 0) / values.length) ** 2, 0) / values.length / values.length);
  // Monte Carlo error of an SD from 10,000 resamples is under 1% of it; the tolerances allow about 3%.

  it('should give handoffs per rollout its bootstrap SE over problems, per benchmark and stratified for the macro', () => {
    const a = stats.per_benchmark.a;
    expect(a.handoffs_per_rollout).toBe(1.25);
    expect(Math.abs(a.handoffs_per_rollout_se! - 0.25 / Math.SQRT2)).toBeLessThan(0.006);
    const b = stats.per_benchmark.b;
    expect(b.handoffs_per_rollout).toBe(3);
    expect(Math.abs(b.handoffs_per_rollout_se! - Math.sqrt(8 / 9))).toBeLessThan(0.03);
    expect(stats.macro.handoffs_per_rollout).toBe(2.125);
    expect(Math.abs(stats.macro.handoffs_per_rollout_se! - Math.sqrt(0.25 ** 2 / 2 + 8 / 9) / 2)).toBeLessThan(0.015);
  });

  it('should give the answer-present rate its bootstrap SE over problems (0 where every rollout answers)', () => {
    expect(stats.per_benchmark.a.answer_present_rate).toBe(0.5);
    expect(Math.abs(stats.per_benchmark.a.answer_present_rate_se! - seA([1, 0]))).toBeLessThan(0.01);
    expect(stats.per_benchmark.b.answer_present_rate).toBe(1);
    expect(stats.per_benchmark.b.answer_present_rate_se).toBe(0);
  });

  it('should keep the senior share as mean ± std over rollouts with the SE of the mean over problems', () => {
    const a = stats.per_benchmark.a;
    expect(a.senior_share.mean).toBeCloseTo((2 / 3 + 1 + 1 / 2 + 0) / 4, 12);
    expect(a.senior_share.std).toBeCloseTo(meanStd([2 / 3, 1, 1 / 2, 0]).std, 12);
    expect(Math.abs(a.senior_share.mean_se! - seA([5 / 6, 1 / 4]))).toBeLessThan(0.006);
    expect(stats.per_benchmark.b.senior_share.mean_se).toBe(0);
    expect(stats.macro.senior_share.mean).toBeCloseTo((a.senior_share.mean + 0.5) / 2, 12);
    expect(Math.abs(stats.macro.senior_share.mean_se! - seA([5 / 6, 1 / 4]) / 2)).toBeLessThan(0.006);
  });

  it('should seed each statistic and benchmark apart, -1 for the macro', () => {
    expect(new Set(seeds.map(([s, b]) => `${s} ${b}`)).size).toBe(seeds.length);
    expect(seeds.filter(([, b]) => b === -1).map(([s]) => s).sort()).toEqual(['answer_present_rate', 'handoffs_per_rollout', 'senior_share']);
  });
});

describe('sampleRollouts and the chat template', () => {
  // The same tokenizer with a chat template that marks the user turn: what the prompt tokens hold shows which was used.
  const templated = { ...tokenizer, config: { chat_template: 'Q: {{ messages[0].content }}\nA:' } };
  const common = { ...sampling, maxNewTokens: 4, problems: task.problems('test', 2), samples: 1, grade: never, seed: 5, policies: [senior] };

  it("should prompt through the tokenizer's chat template by default, the question and instruction as the user turn", async () => {
    const [first] = (await sampleRollouts({ ...common, tokenizer: templated })).flat();
    const p = common.problems[0];
    expect(first.prompt).toEqual(tokenizer.encode(`Q: ${p.question} ${p.instruction}\nA:`));
  });

  it("should prompt with the task's plain prompt with chatTemplate off", async () => {
    const [first] = (await sampleRollouts({ ...common, tokenizer: templated, chatTemplate: 'off' })).flat();
    expect(first.prompt).toEqual(tokenizer.encode(common.problems[0].prompt));
  });
});

describe('handoff with the model as its own junior', () => {
  it('should reproduce solo decoding token for token under the same seed (the schedule only picks whose identical sample is kept)', async () => {
    const common = { ...sampling, tokenizer, problems: task.problems('test', 3), samples: 3, grade: never, seed: 21 };
    const solo = (await sampleRollouts({ ...common, policies: [senior] })).flat();
    const team = (await sampleRollouts({ ...common, policies: [senior, senior], schedule: stepHandoffSchedule('alternate', 0.5, Array.from({ length: 150 }, (_, i) => i)) })).flat();
    expect(team.map((r) => r.tokens)).toEqual(solo.map((r) => r.tokens));
    expect(team.some((r) => new Set(r.authors).size === 2)).toBe(true);
  });
});

describe('scoreLegibility', () => {
  it("should sum the junior's -log p of each response token (stop tokens skipped) and give overlap 1 against itself", async () => {
    const [a, b] = [await Scorer.create(senior), await Scorer.create(junior)];
    try {
      const prompt = tokenizer.encode('Question: What is 3 plus 4?\nAnswer:\n');
      const tokens = [...tokenizer.encode('Ones: 3 plus 4 is 7.'), 0];
      const [scored] = await scoreLegibility(a, b, [{ prompt, tokens }], [0], 4);
      const [byToken] = await b.score([[...prompt, ...tokens]]);
      const expected = -byToken.logprobs.slice(prompt.length, prompt.length + tokens.length - 1).reduce((s, x) => s! + x!, 0)!;
      expect(scored.positions).toBe(tokens.length - 1);
      expect(scored.crossEntropySum).toBeCloseTo(expected, 3);
      expect(scored.overlapSum / scored.positions).toBeLessThan(0.999);
      const [self] = await scoreLegibility(b, b, [{ prompt, tokens }], [0], 4);
      expect(self.overlapSum / self.positions).toBeCloseTo(1, 4);
    } finally {
      await a.release();
      await b.release();
    }
  });
});

describe('driftFrom', () => {
  // Two benchmarks of one problem each: resampling within a benchmark can only redraw that problem, so every SE is 0.
  const counts = (entries: Array<[number, number]>) => new Map(entries);
  const input = {
    vocabSize: 4,
    model: [[counts([[1, 6], [2, 2]])], [counts([[3, 4]])]],
    junior: [[counts([[1, 2], [2, 4]])], [counts([[3, 2], [0, 2]])]],
    reference: [[counts([[1, 8]])], [counts([[2, 2], [3, 2]])]],
    decode: (id: number) => `t${id}`,
    smoothing: 0.5,
    minJuniorCount: 2,
    displacedTop: 3,
    displacedRanking: 'signed' as const,
    overEmittedTop: 2,
    overEmittedMinCount: 1,
    resamples: 50,
    seed: 1,
  };
  const r = driftFrom(input);

  it('should take KL of the pooled smoothed marginals, SE 0 when each benchmark has one problem', () => {
    // Pooled counts: model [0, 6, 2, 4], junior [2, 2, 4, 2]; add 0.5 and normalize.
    const pModel = [0.5, 6.5, 2.5, 4.5].map((c) => c / 14);
    const pJunior = [2.5, 2.5, 4.5, 2.5].map((c) => c / 12);
    expect(r.kl.value).toBeCloseTo(pModel.reduce((a, p, i) => a + p * Math.log(p / pJunior[i]), 0), 12);
    expect(r.kl.se).toBe(0);
    expect(r.tokens).toEqual({ model: 12, junior: 10, reference: 12 });
    expect(r.reference_kl!.value).toBeCloseTo(klDivergence(distributionFromCounts([0, 8, 2, 2], 0.5), distributionFromCounts([2, 2, 4, 2], 0.5)), 12);
  });

  it('should list over-emitted tokens with raw counts, largest log-ratio first', () => {
    // log-ratios: t1 log((6.5/14)/(2.5/12)) = 0.80, t3 log((4.5/14)/(2.5/12)) = 0.43; t0, t2 are under-emitted.
    expect(r.over_emitted.map((t) => [t.text, t.model_count, t.junior_count, t.reference_count])).toEqual([
      ['t1', 6, 2, 8],
      ['t3', 4, 2, 2],
    ]);
    // With a minimum of 5 occurrences in the model's outputs only t1 (6) qualifies.
    expect(driftFrom({ ...input, overEmittedMinCount: 5 }).over_emitted.map((t) => t.id)).toEqual([1]);
  });

  it('should build the survival curve over junior-frequent tokens and the displaced analysis against the reference', () => {
    expect(r.survival[0]).toEqual({ threshold: 0, fraction: 1, se: 0 });
    // One problem per benchmark: every resample redraws the observed data, so every point's SE is 0.
    expect(r.survival.every((point) => point.se === 0)).toBe(true);
    expect(r.reference_survival!.map((point) => point.threshold)).toEqual(r.survival.map((point) => point.threshold));
    expect(r.survival[r.survival.length - 1].fraction).toBe(0);
    expect(r.displaced!.top).toBe(3);
    expect(r.displaced!.shift_back_share_se).toBe(0);
    expect(r.displaced!.tokens.map((t) => t.id)).toHaveLength(3);
    expect(driftFrom({ ...input, reference: undefined }).displaced).toBeUndefined();
    // At a minimum of 3 occurrences in the reference or junior, only t1 (8) and t2 (4) qualify: too few to rank.
    expect(driftFrom({ ...input, minJuniorCount: 3 }).displaced).toBeUndefined();
  });

  it('should give every survival point the bootstrap SE of its fraction, matching the exact SE enumerated over resamples of two problems', () => {
    // One benchmark of two problems: a resample draws {0,0}, {0,1} or {1,1} with probability 1/4, 1/2, 1/4, so the
    // exact bootstrap distribution of each survival point is the curve recomputed on those three pooled samples.
    const two = {
      ...input,
      vocabSize: 3,
      model: [[counts([[0, 4], [1, 1]]), counts([[1, 3], [2, 2]])]],
      junior: [[counts([[0, 2], [1, 2], [2, 1]]), counts([[0, 1], [1, 2], [2, 3]])]],
      reference: [[counts([[0, 1], [1, 5]]), counts([[0, 2], [2, 6]])]],
      minJuniorCount: 2,
      resamples: 10_000,
      seed: 3,
    };
    const result = driftFrom(two);
    const exactSe = (a: Map<number, number>[], b: Map<number, number>[], threshold: number) => {
      const fraction = (picks: number[]) => {
        const pooledOf = (problems: Map<number, number>[]) => {
          const total = [0, 0, 0];
          for (const p of picks) for (const [id, c] of problems[p]) total[id] += c;
          return distributionFromCounts(total, 0.5);
        };
        const [pa, pb] = [pooledOf(a), pooledOf(b)];
        // Every token is frequent in the junior's pooled outputs (counts 3, 4, 4 >= 2).
        return [0, 1, 2].filter((id) => Math.abs(Math.log(pa[id] / pb[id])) > threshold).length / 3;
      };
      const outcomes = [
        { w: 0.25, f: fraction([0, 0]) },
        { w: 0.5, f: fraction([0, 1]) },
        { w: 0.25, f: fraction([1, 1]) },
      ];
      const m = outcomes.reduce((acc, o) => acc + o.w * o.f, 0);
      return Math.sqrt(outcomes.reduce((acc, o) => acc + o.w * (o.f - m) ** 2, 0));
    };
    for (const [curve, a] of [[result.survival, two.model[0]], [result.reference_survival!, two.reference[0]]] as const) {
      expect(curve).toHaveLength(51);
      const exact = curve.map((point) => exactSe(a, two.junior[0], point.threshold));
      // Some points move between resamples, or the comparison would only check zeros.
      expect(Math.max(...exact)).toBeGreaterThan(0.2);
      // Monte Carlo error of an SD from 10,000 resamples: at most about 0.5 / sqrt(20,000) = 0.0035.
      curve.forEach((point, i) => expect(Math.abs(point.se! - exact[i]), `threshold ${point.threshold}`).toBeLessThan(0.015));
    }
  });

  it('should count tokens per problem without stop tokens', () => {
    expect([...problemCounts([[1, 2, 0], [2, 0]], new Set([0]))]).toEqual([[1, 1], [2, 2]]);
  });
});

describe('evaluate', () => {
  const tasks = [
    { name: 'two-digit', task, split: 'test' as const },
    { name: 'three-digit', task: arithmeticTask({ maxDigits: 3 }), split: 'test' as const },
  ];
  // Accepts every other response it grades: a known share of correct samples. Finds an answer in responses of even
  // length, so the answer-present rate varies between problems.
  const alternating = (): Grader => {
    let calls = 0;
    return (_gold, prediction) => ({ answer_present: prediction.length % 2 === 0, correct: calls++ % 2 === 0 });
  };
  const options = (grade: Grader): EvalOptions => ({
    ...sampling,
    // Long enough that a random model writes the tokenizer's one step-end token now and then, so both benchmarks see handoffs.
    maxNewTokens: 64,
    model: { id: 'senior', policy: senior },
    junior: { id: 'junior', policy: junior },
    reference: { id: 'reference', policy: policyOf(7, 'reference') },
    tokenizer,
    benchmarks: tasks,
    axes: ['capability', 'handoff', 'drift', 'legibility'],
    problems: 3,
    samples: 4,
    grade,
    seed: 5,
    bootstrap: 200,
  });

  it('should report every axis on two benchmarks with a macro average, replayably, as plain JSON', async () => {
    const report = await evaluate(options(alternating()));
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
    const cap = report.capability!;
    expect(Object.keys(cap.per_benchmark)).toEqual(['two-digit', 'three-digit']);
    expect(cap.per_benchmark['two-digit'].pass_at_k['1'].value).toBeCloseTo(0.5, 12);
    expect(cap.macro.pass_at_k['1'].value).toBeCloseTo((cap.per_benchmark['two-digit'].pass_at_k['1'].value + cap.per_benchmark['three-digit'].pass_at_k['1'].value) / 2, 12);
    expect(Object.keys(cap.macro.pass_at_k)).toEqual(['1', '2', '4']);
    expect(report.per_problem).toHaveLength(6);
    expect(report.per_problem.reduce((a, p) => a + p.capability_correct!, 0)).toBe(12);
    expect(report.handoff!.map((h) => h.variant)).toEqual(['alternate', 'bernoulli']);
    for (const h of report.handoff!) {
      expect(h.macro.senior_share.mean).toBeGreaterThanOrEqual(0);
      expect(h.macro.senior_share.mean).toBeLessThanOrEqual(1);
      expect(h.boundary_tokens).toBeGreaterThan(0);
      expect(h.macro.senior_share.mean_se).toBeGreaterThanOrEqual(0);
      expect(h.macro.handoffs_per_rollout_se).toBeGreaterThan(0);
      for (const b of Object.values(h.per_benchmark)) {
        expect(b.handoffs_per_rollout_se).toBeGreaterThan(0);
        // Three problems of four rollouts: the rate may well be equal across them, so only its presence is certain.
        expect(b.answer_present_rate_se).toBeGreaterThanOrEqual(0);
      }
    }
    for (const b of Object.values(cap.per_benchmark)) {
      expect(b.answer_present_rate).toBeGreaterThan(0);
      expect(b.answer_present_rate).toBeLessThan(1);
      expect(b.answer_present_rate_se).toBeGreaterThan(0);
    }
    expect(report.drift!.survival.every((point) => Number.isFinite(point.se))).toBe(true);
    expect(report.drift!.survival.some((point) => point.se! > 0)).toBe(true);
    expect(report.drift!.reference_survival!.every((point) => Number.isFinite(point.se))).toBe(true);
    expect(report.per_problem.every((p) => p.handoff?.alternate && p.handoff?.bernoulli)).toBe(true);
    expect(report.drift!.kl.value).toBeGreaterThan(0);
    expect(report.drift!.displaced).toBeDefined();
    expect(report.reference).toBe('reference');
    expect(report.legibility!.macro.overlap.value).toBeLessThan(1);
    expect(report.legibility!.macro.cross_entropy.value).toBeGreaterThan(0);
    const again = await evaluate(options(alternating()));
    expect({ ...again, created: '', wall_seconds: 0 }).toEqual({ ...report, created: '', wall_seconds: 0 });
    expect(deriveSeed(report.seed, 1)).toBe(deriveSeed(5, 1));
  }, 120_000);

  it('should measure tandem accuracy under the training schedule (word handoff, K = 32), per problem, for paired tests', async () => {
    const word = await evaluate({ ...options(alternating()), axes: ['handoff'], handoffVariants: ['word'], benchmarks: [tasks[0]] });
    const [h] = word.handoff!;
    expect(h.variant).toBe('word');
    expect(h.boundary_tokens).toBe(Array.from(wordBoundary(tokenizer).ids).length);
    expect(h.macro.handoffs_per_rollout).toBeGreaterThan(1);
    expect(h.macro.senior_share.mean).toBeGreaterThan(0.2);
    expect(h.macro.senior_share.mean).toBeLessThan(0.8);
    expect(word.per_problem.every((p) => p.handoff?.word !== undefined)).toBe(true);
    expect(compareReports(word, word).tests.map((t) => t.metric)).toContain('handoff word pass@1');
  }, 120_000);

  it('should grade each benchmark by its own grader where it names one', async () => {
    const always: Grader = () => ({ answer_present: true, correct: true });
    const report = await evaluate({ ...options(never), benchmarks: [{ ...tasks[0], grade: always }, tasks[1]], axes: ['capability', 'handoff'], handoffVariants: ['alternate'] });
    expect(report.capability!.per_benchmark['two-digit'].pass_at_k['1'].value).toBe(1);
    expect(report.capability!.per_benchmark['three-digit'].pass_at_k['1'].value).toBe(0);
    expect(report.handoff![0].per_benchmark['two-digit'].pass_at_k['1'].value).toBe(1);
    expect(report.handoff![0].per_benchmark['three-digit'].pass_at_k['1'].value).toBe(0);
  }, 120_000);

  it('should refuse axes needing a junior without one', async () => {
    await expect(evaluate({ ...options(never), junior: undefined, axes: ['handoff'] })).rejects.toThrow(/need a junior/);
  });
});
