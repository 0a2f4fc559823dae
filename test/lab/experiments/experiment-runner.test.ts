import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { composePlugins } from '../../../composition/compose.ts';
import type { AnyGame } from '../../../core/catalog.ts';
import type { Grader } from '../../../core/grading/verdict.ts';
import { parseConfig } from '../../../core/parse-config.ts';
import { definePlugin } from '../../../core/plugin-module.ts';
import type { Problem } from '../../../core/tasks/task.ts';
import type { Validation } from '../../../engine/trainer/validate.ts';
import type { CascadeEvalResult } from '../../../lab/eval/cascade-eval.ts';
import type { VerifierEvalResult } from '../../../lab/eval/verifier-eval.ts';
import { AgonExperimentConfigSchema } from '../../../lab/experiments/agon-experiment-config.ts';
import { runAgonVsGrpo } from '../../../lab/experiments/agon-vs-grpo.ts';
import { ExperimentConfigSchema } from '../../../lab/experiments/experiment-config.ts';
import { MODEL_SERVICES, type ExperimentServices } from '../../../lab/experiments/experiment-runner.ts';
import { runSeeds } from '../../../lab/experiments/seeds-summary.ts';
import { TANDEM_VS_GRPO, runTandemVsGrpo } from '../../../lab/experiments/tandem-vs-grpo.ts';
import { TangoExperimentConfigSchema } from '../../../lab/experiments/tango-experiment-config.ts';
import { runTangoVsGrpo } from '../../../lab/experiments/tango-vs-grpo.ts';
import { resolveModelDir } from '../../../plugins/policies/default-model.ts';
import { fixtureReport } from '../reports/fixtures.ts';

/**
 * The runner, not the models: every training and evaluation is a stand-in that records how it was called and returns a
 * fixed result, so these tests check in seconds that each experiment trains and evaluates by the grader its config names.
 */

/** A grader that passes everything and remembers every text it was asked about. */
function spyGrader(): { grade: Grader; seen: string[] } {
  const seen: string[] = [];
  return { seen, grade: (_gold, text) => (seen.push(text), { answer_present: true, correct: true }) };
}

const problem: Problem = { id: 'p', question: 'What is 2 plus 3?', instruction: '', prompt: 'Question: What is 2 plus 3?\nAnswer:\n', answer: '5', solution: '\\boxed{5}', steps: ['\\boxed{5}'], meta: {} };

/** Whether the game's reward rule grades by `spy`: a finished match whose every turn holds a marker text reaches it. */
async function gradesBy(game: AnyGame, spy: ReturnType<typeof spyGrader>, marker: string): Promise<boolean> {
  const text = `${marker} \\boxed{7}`;
  await game.rewards({ matchId: 'm', seed: 1, problem, transcript: game.roles.map((role, turn) => ({ turn, role, tokens: [], text, authors: [] })), finished: true });
  return spy.seen.includes(text);
}

const e = (value: number) => ({ value, se: 0.01 });
const ids = ['0', '1', '2'];

function cascadeResult(correct: readonly number[]): CascadeEvalResult {
  return {
    task: 'arithmetic',
    split: 'test',
    problems: 3,
    samples: 2,
    drafter: 'd',
    challenger: 'c',
    generations: 2,
    turn_tokens: 40,
    pass_at_k: { '1': e(0.5), '2': e(0.6) },
    draft_pass_at_k: { '1': e(0.4), '2': e(0.5) },
    answer_present_rate: e(0.9),
    converted: e(0.1),
    regressed: e(0.05),
    trace_tokens: { draft: e(30), challenge: e(30), summary_prefill: e(20) },
    per_problem: ids.map((id, i) => ({ id, correct: correct[i], draft_correct: 1 })),
  };
}

function verifierResult(outcome: readonly number[]): VerifierEvalResult {
  const counts = { tp: 1, fp: 1, fn: 1, tn: 1 };
  return {
    task: 'last-letter',
    split: 'test',
    problems: 3,
    samples: 2,
    temperature: 1,
    judge_temperature: 0,
    policies: {},
    solution_accuracy: e(0.5),
    outcome_precision: e(0.5),
    outcome_recall: e(0.5),
    outcome_f1: e(0.5),
    step_f1: e(0.4),
    processbench_f1: e(0.3),
    readable: e(0.9),
    counts: { outcome: counts, steps: counts, processBench: { erroneous: 1, erroneousRight: 1, correct: 1, correctRight: 0 } },
    per_problem: ids.map((id, i) => ({ id, outcome_accuracy: outcome[i], step_accuracy: null, solution_accuracy: 0.5 })),
  };
}

/** Stand-ins that check each call's grader: `evaluate` by identity, the game-playing ones through their game's reward rule. */
function stubServices(spy: ReturnType<typeof spyGrader>, base: string) {
  const calls: { service: string; gradedBySpy: boolean; detail?: string }[] = [];
  let evaluations = 0;
  const services: ExperimentServices = {
    train: async (run) => {
      calls.push({ service: 'train', gradedBySpy: run.config.grader === 'spy' && (await gradesBy(run.game, spy, `train ${run.out}`)), detail: run.config.game });
      return { steps: run.config.steps, checkpointed: run.config.steps, best: null };
    },
    evaluate: async (options) => {
      calls.push({ service: 'evaluate', gradedBySpy: options.grade === spy.grade && options.benchmarks.every((b) => b.grade === spy.grade), detail: options.chatTemplate });
      evaluations++;
      const perProblem = ids.map((id, i) => ({ benchmark: 'arithmetic', id, capability_correct: (i + evaluations) % 5 }));
      return fixtureReport(`${options.model.id}#${evaluations}`, 1 - evaluations * 0.05, { per_problem: perProblem });
    },
    evaluateCascade: async (options) => {
      calls.push({ service: 'evaluateCascade', gradedBySpy: options.grade === spy.grade && (await gradesBy(options.game, spy, `cascade ${options.drafter} ${options.challenger}`)), detail: options.chatTemplate });
      return cascadeResult([calls.length % 3, 1, 2]);
    },
    evaluateVerifier: async (options) => {
      calls.push({ service: 'evaluateVerifier', gradedBySpy: await gradesBy(options.game, spy, `verify ${options.policies.verifier} ${options.policies.generator}`), detail: options.chatTemplate });
      return verifierResult([0.5, (calls.length % 2) * 0.5, 1]);
    },
    validateGame: async (options) => {
      calls.push({ service: 'validateGame', gradedBySpy: await gradesBy(options.game, spy, 'validate base'), detail: options.chatTemplate });
      return { split: 'validation', accuracy: 0.5, answerPresent: 1, problems: 2, role: 'generator', correct: [true, false], judges: { verifier: { outcome_f1: 0.4, step_f1: 0.3 } } } satisfies Validation;
    },
    policyDivergence: async (a, b, options) => {
      calls.push({ service: 'policyDivergence', gradedBySpy: options.grade === spy.grade, detail: options.chatTemplate });
      return MODEL_SERVICES.policyDivergence(a, b, options);
    },
    // Nothing was trained: every model an evaluation would read is the shipped base.
    loadPolicy: (_dir, name) => MODEL_SERVICES.loadPolicy(base, name),
  };
  return { services, calls };
}

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ludus-runner-'));
  dirs.push(dir);
  return dir;
};

async function spyCatalog() {
  const spy = spyGrader();
  const catalog = await composePlugins([definePlugin({ name: 'spy-grader', graders: [{ name: 'spy', create: () => spy.grade }] })]);
  return { spy, catalog };
}

const byService = (calls: ReturnType<typeof stubServices>['calls']) => Object.fromEntries([...new Set(calls.map((c) => c.service))].map((s) => [s, calls.filter((c) => c.service === s).length]));

describe('the experiment runner', () => {
  describe('having tango-vs-grpo with a grader named in its training config', () => {
    it('should train every arm and run every evaluation by that grader, not by the math or exact grader, with the trainings\' prompt rule', async () => {
      const { spy, catalog } = await spyCatalog();
      const { services, calls } = stubServices(spy, resolveModelDir('default', 'last-letter'));
      const config = parseConfig(TangoExperimentConfigSchema, { generatorSteps: 2, knobs: { verifierWarmup: 1 }, train: { grader: 'spy', chatTemplate: 'off' }, eval: { problems: 3 } }, 'test');
      const result = await runTangoVsGrpo({ out: await tempDir(), config, catalog }, services);
      expect(byService(calls)).toEqual({ train: 4, validateGame: 1, evaluate: 4, evaluateVerifier: 6 });
      expect(calls.filter((c) => !c.gradedBySpy)).toEqual([]);
      expect(calls.filter((c) => c.service !== 'train').map((c) => c.detail)).toEqual(Array(11).fill('off'));
      expect(result.grader).toBe('spy');
      expect(result.arms.map((arm) => arm.config.normalization)).toEqual(Array(4).fill('sequence-mean'));
      const report = await readFile(result.report, 'utf8');
      expect(report).toContain('greedy decoding');
      expect(report).toContain("Holm-corrected in two families: the experiment's **6 claims**");
      expect(report).toContain('fixed verifier > vanilla GRPO');
    });
  });

  describe('having agon-vs-grpo with a grader named in its training config', () => {
    it('should train every arm and run every evaluation by that grader, and train GRPO dropping zero-variance groups', async () => {
      const { spy, catalog } = await spyCatalog();
      const { services, calls } = stubServices(spy, resolveModelDir('default', 'arithmetic'));
      const config = parseConfig(AgonExperimentConfigSchema, { steps: 1, train: { grader: 'spy' }, eval: { problems: 3, samples: 2 } }, 'test');
      const result = await runAgonVsGrpo({ out: await tempDir(), config, catalog }, services);
      expect(byService(calls)).toEqual({ train: 5, evaluate: 2, evaluateCascade: 8, policyDivergence: 3 });
      expect(calls.filter((c) => !c.gradedBySpy)).toEqual([]);
      expect(result.grader).toBe('spy');
      expect(result.arms.find((arm) => arm.arm === 'grpo')!.config.knobs).toEqual({ zeroVariance: 'drop', correctWeight: 2, formatWeight: 1 });
    });
  });

  describe('having tandem-vs-grpo with a grader named in its training config', () => {
    it('should train every game and run every evaluation by that grader', async () => {
      const { spy, catalog } = await spyCatalog();
      const { services, calls } = stubServices(spy, resolveModelDir('default', 'arithmetic'));
      const config = parseConfig(ExperimentConfigSchema, { steps: 1, train: { grader: 'spy' }, eval: { problems: 3, axes: ['capability'] } }, 'test');
      const result = await runTandemVsGrpo({ out: await tempDir(), config, catalog }, services);
      expect(byService(calls)).toEqual({ train: 3, evaluate: 4 });
      expect(calls.filter((c) => !c.gradedBySpy)).toEqual([]);
      expect(result.grader).toBe('spy');
      const report = await readFile(result.report, 'utf8');
      expect(report).toContain('estimator `k3`');
    });
  });

  describe('having three training seeds', () => {
    it('should run the experiment once per seed in seed-<s>/ and report every headline number as mean ± SE across seeds, with seed-level tests of its claims and the pooled tests beside', async () => {
      const { spy, catalog } = await spyCatalog();
      const { services, calls } = stubServices(spy, resolveModelDir('default', 'arithmetic'));
      const config = parseConfig(ExperimentConfigSchema, { steps: 1, train: { grader: 'spy' }, eval: { problems: 3, axes: ['capability'] } }, 'test');
      const out = await tempDir();
      const result = await runSeeds(TANDEM_VS_GRPO, { out, config, catalog }, [0, 1, 2], services);
      expect(result.results.map((r) => [r.seed, r.out])).toEqual([0, 1, 2].map((seed) => [seed, join(out, `seed-${seed}`)]));
      expect(calls.filter((c) => c.service === 'train')).toHaveLength(9);
      const trl = result.summary.find((row) => row.model === 'TRL' && row.metric === 'pass@1')!;
      expect(trl.perSeed.map((s) => s.seed)).toEqual([0, 1, 2]);
      const values = trl.perSeed.map((s) => s.value);
      const mean = values.reduce((a, v) => a + v, 0) / 3;
      expect(trl.mean).toBeCloseTo(mean, 12);
      expect(trl.se).toBeCloseTo(Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / 2 / 3), 12);
      expect(result.tests.map((t) => `${t.model} > ${t.other}`)).toEqual(['TRL > GRPO', 'TRL > KL-Reg']);
      // Each claim tested across the three seeds (its per-seed differences, the t-test across them), Holm over the claims' family.
      expect(result.tests.every((t) => t.claim && t.test?.n === 3 && t.test.family === 2 && t.pooled.family === 2)).toBe(true);
      const trlSeeds = result.tests[0].perSeed.map((s) => s.diff);
      expect(result.tests[0].test!.mean_diff).toBeCloseTo(trlSeeds.reduce((a, d) => a + d, 0) / 3, 12);
      const report = await readFile(result.report, 'utf8');
      expect(report).toContain('across 3 seeds (mean ± SE)');
      expect(report).toContain('## The claims, tested across seeds (primary)');
      expect(report).toContain('## Pooled over seeds (secondary: about these 3 trained models on these problems)');
      expect(report).toMatch(/significant|consistent in \d of 3 seeds/);
    });

    it('should refuse a seed listed twice', async () => {
      const { catalog } = await spyCatalog();
      const config = parseConfig(ExperimentConfigSchema, {}, 'test');
      await expect(runSeeds(TANDEM_VS_GRPO, { out: await tempDir(), config, catalog }, [1, 1])).rejects.toThrow(/listed twice/);
    });
  });
});
