import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../core/parse-config.ts';
import { evaluate } from '../../../lab/eval/evaluate.ts';
import { TangoExperimentConfigSchema } from '../../../lab/experiments/tango-experiment-config.ts';
import { gradeMath } from '../../../plugins/graders/math/grade-math.ts';
import { resolveModelDir } from '../../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../../plugins/policies/load-policy.ts';
import { taskByName } from '../../../plugins/tasks/registry.ts';

describe('greedy evaluation (temperature 0)', () => {
  it('should decode every sample of a problem alike, whatever the seed, on the shipped base', { timeout: 300_000 }, async () => {
    const dir = resolveModelDir('default', 'arithmetic');
    const { policy, tokenizer } = await loadPolicy(dir, 'base');
    const task = await taskByName('arithmetic');
    const run = (seed: number, temperature: number) =>
      evaluate({
        model: { id: dir, policy },
        tokenizer: tokenizer!,
        benchmarks: [{ name: 'arithmetic', task, split: 'test' }],
        axes: ['capability'],
        problems: 6,
        samples: 3,
        grade: gradeMath,
        seed,
        temperature,
        topP: 1,
        maxNewTokens: 224,
        batch: 18,
        stopTokens: policy.config.eosTokenIds,
        bootstrap: 20,
        threads: 1,
      });
    const [first, second] = [await run(1, 0), await run(2, 0)];
    expect(first.config.temperature).toBe(0);
    // Greedy: the three samples of a problem are one answer, right or wrong three times.
    for (const p of first.per_problem) expect([0, 3]).toContain(p.capability_correct);
    expect(second.per_problem).toEqual(first.per_problem);
    expect(second.capability!.macro.pass_at_k['1'].value).toBe(first.capability!.macro.pass_at_k['1'].value);
    expect(first.capability!.per_benchmark.arithmetic.mean_response_tokens).toBe(second.capability!.per_benchmark.arithmetic.mean_response_tokens);
  });

  it('should be how tango-vs-grpo evaluates its generators by default, as the paper does (§4)', () => {
    const config = parseConfig(TangoExperimentConfigSchema, {}, 'test');
    expect(config.eval.temperature).toBe(0);
    // Its verifiers judge greedily too, once a solution; the solutions they judge are sampled as in training.
    expect([config.eval.verifierTemperature, config.eval.verifierSamples, config.eval.solutionTemperature]).toEqual([0, 1, 1]);
  });
});

describe('the verifier axes with a greedy judge', () => {
  it('should judge several sampled solutions of a problem once each, greedily, instead of one solution several times alike', { timeout: 300_000 }, async () => {
    const { evaluateVerifier } = await import('../../../lab/eval/verifier-eval.ts');
    const { composePlugins } = await import('../../../composition/compose.ts');
    const { gameFor } = await import('../../../engine/trainer/run-pieces.ts');
    const game = gameFor(await composePlugins(), { game: 'tango', grader: 'math', knobs: {} });
    const dir = resolveModelDir('models/arithmetic-judge', 'arithmetic');
    const task = await taskByName('arithmetic');
    const run = (judgeTemperature: number) =>
      evaluateVerifier({
        game,
        judge: 'verifier',
        policies: { generator: dir, verifier: dir },
        task,
        taskName: 'arithmetic',
        split: 'test',
        problems: 8,
        samples: 4,
        temperature: 1,
        judgeTemperature,
        topP: 1,
        seed: 0,
        batch: 8,
        bootstrap: 20,
        threads: 1,
      });
    const greedy = await run(0);
    expect([greedy.temperature, greedy.judge_temperature, greedy.samples]).toEqual([1, 0, 4]);
    expect(greedy.counts.outcome.tp + greedy.counts.outcome.fp + greedy.counts.outcome.fn + greedy.counts.outcome.tn).toBe(32);
    // Four solutions sampled at T = 1 by a base that forgets carries at random: some problem has right and wrong ones.
    expect(greedy.per_problem.some((p) => p.solution_accuracy > 0 && p.solution_accuracy < 1)).toBe(true);
    // Sampling judges read one solution four times: its problems' solutions are all right or all wrong.
    const sampled = await run(1);
    expect(sampled.per_problem.every((p) => p.solution_accuracy === 0 || p.solution_accuracy === 1)).toBe(true);
  });
});
