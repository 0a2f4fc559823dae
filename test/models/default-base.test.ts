import { describe, expect, it } from 'vitest';
import { runLudus } from '../support/cli.ts';
import type { EvalReport } from '../../lab/eval/report-types.ts';
import type { VerifierEvalResult } from '../../lab/eval/verifier-eval.ts';
import { randomJudgeF1 } from '../../cli/verifier-axis.ts';
import { calcGame } from '../../games/calc.ts';
import { validateGame } from '../../lab/eval/game-validation.ts';
import { gradeMath } from '../../plugins/graders/math/grade-math.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { multiplicationTask } from '../../plugins/tasks/multiplication/multiplication-task.ts';

/**
 * The shipped arithmetic base must leave room for RL: it writes the format, solves some held-out problems, not all,
 * and solves many more with several tries (its misses are a forgotten carry here and there, not problems beyond it).
 * 48 problems are what the bands need: at the measured pass@1 0.371 (sd 0.31 per problem, docs/default-base.md) its
 * SE is 0.045, so the nearer edge is 3.8 SE away, and pass@8 − pass@1 (0.48) clears 0.15 by 7 SE; the seeds are fixed.
 */
describe('the shipped default arithmetic base', () => {
  describe('having 48 held-out problems and 8 samples each', () => {
    it('should have pass@1 between 0.2 and 0.6, a clearly higher pass@8 and the answer boxed at least 95% of the time', async () => {
      const result = await runLudus(['eval', '--model', 'default', '--task', 'arithmetic', '--split', 'test', '--problems', '48', '--samples', '8', '--threads', '2', '--json'], { timeoutMs: 600_000 });
      expect(result.stderr).not.toMatch(/\[[A-Z_]+\]/);
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as EvalReport;
      expect(report.benchmarks).toEqual([{ name: 'arithmetic', split: 'test', problems: 48 }]);
      expect(report.capability!.samples).toBe(8);
      const passAt = (k: number) => report.capability!.per_benchmark.arithmetic.pass_at_k[String(k)].value;
      expect(passAt(1)).toBeGreaterThanOrEqual(0.2);
      expect(passAt(1)).toBeLessThanOrEqual(0.6);
      expect(passAt(8)).toBeGreaterThan(passAt(1) + 0.15);
      expect(report.capability!.per_benchmark.arithmetic.answer_present_rate).toBeGreaterThanOrEqual(0.95);
    }, 600_000);
  });
});

/**
 * The shipped last-letter base (Tango's, both roles) must copy the prompt's words well enough to solve some held-out
 * problems and not all, slip independently per sample (pass@4 well above pass@1: the room RL has), box its answer, and
 * write verdicts in the verifier's format without judging well: the format-only competence RL starts from (measured on
 * 64 × 4 in docs/default-base.md: pass@1 0.36, pass@4 0.63, outcome F1 0.41).
 */
describe('the shipped last-letter base', () => {
  describe('having 20 held-out problems, 4 samples each, and judging its own solutions', () => {
    it('should solve some problems and not most, more of them in 4 samples than in 1, box every answer, and write verdicts in format without judging well', async () => {
      const result = await runLudus(['eval', '--model', 'models/last-letter', '--task', 'last-letter', '--split', 'test', '--axes', 'capability,verifier', '--max-new-tokens', '768', '--problems', '20', '--samples', '4', '--threads', '2', '--json'], { timeoutMs: 600_000 });
      expect(result.stderr).not.toMatch(/\[[A-Z_]+\]/);
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as EvalReport & { verifier: Record<string, VerifierEvalResult> };
      const capability = report.capability!.per_benchmark['last-letter'];
      expect(capability.pass_at_k['1'].value).toBeGreaterThanOrEqual(0.2);
      expect(capability.pass_at_k['1'].value).toBeLessThanOrEqual(0.6);
      expect(capability.pass_at_k['4'].value).toBeGreaterThan(capability.pass_at_k['1'].value + 0.15);
      expect(capability.answer_present_rate).toBeGreaterThanOrEqual(0.95);
      const verifier = report.verifier['last-letter'];
      expect(verifier.readable!.value).toBeGreaterThanOrEqual(0.4);
      expect(verifier.outcome_f1!.value).toBeLessThan(0.6);
    }, 600_000);
  });
});

/**
 * The shipped judging base (Tango's and Agon's default, all roles, on arithmetic) must keep the arithmetic base's room
 * for RL (slips drawn afresh per sample), box its answers, write verdicts in the verifier's format, and judge above a
 * random judge while missing slips RL can teach it to catch. Measured on 64 × 4 greedily judged solutions in
 * docs/default-base.md: outcome F1 0.635 against a random judge's 0.528, step F1 0.688, 97.6% readable.
 */
describe('the shipped judging base (models/arithmetic-judge)', () => {
  describe('having 32 held-out problems, 4 samples each, and judging its own solutions', () => {
    it('should solve some problems and not most, more in 4 samples than in 1, box every answer, write most verdicts in format, and judge well above a random judge', async () => {
      const result = await runLudus(['eval', '--model', 'models/arithmetic-judge', '--task', 'arithmetic', '--split', 'test', '--axes', 'capability,verifier', '--problems', '32', '--samples', '4', '--threads', '2', '--json'], { timeoutMs: 600_000 });
      expect(result.stderr).not.toMatch(/\[[A-Z_]+\]/);
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as EvalReport & { verifier: Record<string, VerifierEvalResult> };
      const capability = report.capability!.per_benchmark.arithmetic;
      expect(capability.pass_at_k['1'].value).toBeGreaterThanOrEqual(0.1);
      expect(capability.pass_at_k['1'].value).toBeLessThanOrEqual(0.5);
      expect(capability.pass_at_k['4'].value).toBeGreaterThan(capability.pass_at_k['1'].value + 0.15);
      expect(capability.answer_present_rate).toBeGreaterThanOrEqual(0.95);
      const verifier = report.verifier.arithmetic;
      expect(verifier.readable!.value).toBeGreaterThanOrEqual(0.7);
      // Above chance by design (issue 25): the random judge calling as many solutions correct is the floor.
      const chance = randomJudgeF1(verifier.counts.outcome);
      expect(chance).not.toBeNull();
      expect(verifier.outcome_f1!.value).toBeGreaterThan(chance! + 0.1);
      expect(verifier.step_f1!.value).toBeGreaterThan(0.4);
    }, 600_000);
  });
});

/**
 * The calc game's base (models/multiplication) must be able to call its calculator, but rarely or badly, and must not
 * multiply well on its own: RL has a tool to learn to use. Measured on 200 test problems: call rate 0.23, malformed
 * calls 0.165 a match (72% of its calls), accuracy 3.5% (docs/agentic-turns.md). The bands hold at 96 problems, seeds fixed.
 */
describe('the shipped calc base (models/multiplication)', () => {
  it('should call sometimes, mostly malformed, and answer few problems right', async () => {
    const result = await validateGame({
      game: calcGame({}, gradeMath),
      policies: { solver: resolveModelDir('default', 'multiplication') },
      task: multiplicationTask(),
      taskName: 'multiplication',
      problems: 96,
      split: 'test',
      seed: 0,
      temperature: 1,
      topP: 1,
      rows: 96,
      threads: 2,
    });
    const tools = result.tools!;
    expect(tools.tool_call_rate).toBeGreaterThan(0.08);
    expect(tools.tool_call_rate).toBeLessThan(0.45);
    expect(tools.tool_malformed / tools.tool_calls).toBeGreaterThan(0.4);
    expect(tools.tool_results).toBeGreaterThan(0);
    expect(result.accuracy).toBeLessThan(0.15);
    expect(result.answerPresent).toBeGreaterThan(0.9);
  }, 300_000);
});
