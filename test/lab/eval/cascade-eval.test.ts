import { describe, expect, it } from 'vitest';
import { composePlugins } from '../../../composition/compose.ts';
import { gameFor } from '../../../engine/trainer/run-pieces.ts';
import { evaluateCascade, pairedPassTest, type CascadeEvalOptions } from '../../../lab/eval/cascade-eval.ts';
import { gradeMath } from '../../../plugins/graders/math/grade-math.ts';
import { taskByName } from '../../../plugins/tasks/registry.ts';
import { rejection } from '../../support/errors.ts';

const catalog = await composePlugins();
const task = await taskByName('arithmetic');
const agon = (knobs: Record<string, unknown> = {}) => gameFor(catalog, { game: 'agon', grader: 'math', knobs: { turnTokens: 48, ...knobs } });
const options = (overrides: Partial<CascadeEvalOptions> = {}): CascadeEvalOptions => ({
  game: agon(),
  drafter: 'default',
  challenger: 'default',
  grade: gradeMath,
  task,
  taskName: 'arithmetic',
  split: 'test',
  problems: 4,
  samples: 2,
  temperature: 1,
  topP: 1,
  seed: 3,
  batch: 2,
  bootstrap: 50,
  threads: 1,
  ...overrides,
});

describe('evaluateCascade', () => {
  describe('having the shipped base in both seats (the untrained cascade)', () => {
    it('should grade the challenge as the answer, its change from the draft being exactly conversions minus regressions, and replay on the same seed', { timeout: 300_000 }, async () => {
      const first = await evaluateCascade(options());
      expect(first.generations).toBe(2);
      expect(first.turn_tokens).toBe(48);
      expect(first.per_problem).toHaveLength(4);
      for (const p of first.per_problem) expect(p.correct).toBeLessThanOrEqual(2);
      const mean = (f: (p: (typeof first.per_problem)[number]) => number) => first.per_problem.reduce((a, p) => a + f(p), 0) / (4 * 2);
      expect(first.pass_at_k['1'].value).toBeCloseTo(mean((p) => p.correct), 12);
      expect(first.draft_pass_at_k['1'].value).toBeCloseTo(mean((p) => p.draft_correct), 12);
      // Per answer, challenge − draft = [converted] − [regressed]: one draft, so the identity is exact.
      expect(first.pass_at_k['1'].value - first.draft_pass_at_k['1'].value).toBeCloseTo(first.converted.value - first.regressed.value, 12);
      for (const stage of [first.trace_tokens.draft, first.trace_tokens.challenge]) expect(stage.value).toBeGreaterThan(0);
      for (const stage of [first.trace_tokens.draft, first.trace_tokens.challenge]) expect(stage.value).toBeLessThanOrEqual(48);
      // Under `continue` the challenger reads the summary after the problem: prefill beyond the plain prompt.
      expect(first.trace_tokens.summary_prefill.value).toBeGreaterThan(0);
      // Arithmetic's working spells its answer: how often the withheld summary reads the draft's answer is measured.
      expect(first.summary_reveals!.value).toBeGreaterThanOrEqual(0);
      expect(first.summary_reveals!.value).toBeLessThanOrEqual(1);
      const again = await evaluateCascade(options());
      expect(again).toEqual(first);
    });
  });

  describe('having two proposals (the Mixture-of-Agents baseline)', () => {
    it('should cost three generations per answer and draft twice', { timeout: 300_000 }, async () => {
      const one = await evaluateCascade(options({ problems: 2 }));
      const moa = await evaluateCascade(options({ game: agon({ proposals: 2 }), problems: 2 }));
      expect(moa.generations).toBe(3);
      // Two drafts per answer: about twice the drafting tokens of one (each capped at 48).
      expect(moa.trace_tokens.draft.value).toBeGreaterThan(one.trace_tokens.draft.value);
      expect(moa.trace_tokens.draft.value).toBeLessThanOrEqual(2 * 48);
    });
  });

  describe('having a game that is no draft–challenge cascade', () => {
    it('should refuse it, naming the game', async () => {
      const error = await rejection(evaluateCascade(options({ game: gameFor(catalog, { game: 'grpo', grader: 'math', knobs: {} }) })));
      expect(error.code).toBe('INPUT_INVALID');
      expect(error.message).toContain('"grpo"');
    });
  });
});

describe('pairedPassTest', () => {
  it('should pair problems by id and test per-problem pass@1 one-sided', () => {
    const model = { n: 2, perProblem: [{ id: 'a', correct: 2 }, { id: 'b', correct: 1 }, { id: 'c', correct: 2 }, { id: 'x', correct: 0 }] };
    const other = { n: 4, perProblem: [{ id: 'c', correct: 0 }, { id: 'b', correct: 2 }, { id: 'a', correct: 1 }] };
    const t = pairedPassTest(model, other);
    expect(t.n).toBe(3);
    // Differences a: 1 − 0.25, b: 0.5 − 0.5, c: 1 − 0.
    expect(t.mean_diff).toBeCloseTo((0.75 + 0 + 1) / 3, 12);
    expect(t.p).toBeLessThan(0.5);
    expect(() => pairedPassTest(model, { n: 2, perProblem: [{ id: 'a', correct: 1 }] })).toThrow(/at least 2 shared problems/);
  });
});
