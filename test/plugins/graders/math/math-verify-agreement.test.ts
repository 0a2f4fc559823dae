import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GRADER_PLUGINS } from '../../../../plugins/graders/grader-plugins.ts';
import { DEFAULT_GRADE_LIMITS } from '../../../../plugins/graders/math/budget.ts';
import { FULL_EXTRACTION } from '../../../../plugins/graders/math/extract.ts';
import { gradeMath } from '../../../../plugins/graders/math/grade-math.ts';

/**
 * A pair of test/fixtures/grader/math-verify-agreement.jsonl: drawn by tools/python/agreement_pairs.py from a template
 * of ours in one of the issue's families, with Math-Verify 0.8.0's verdict (`standard`, measured by
 * tools/python/math_verify_verdicts.py one pair at a time). `held-out` templates were never looked at pair by pair
 * while the rules were written; `late` ones were written after the rules, as whole solutions, and measured once.
 */
interface AgreementPair {
  family: string;
  template: string;
  split: 'dev' | 'held-out' | 'late';
  gold: string;
  pred: string;
  standard: boolean | null;
}

const FAMILIES = ['decimal-comma', 'relations', 'labelled', 'several-boxes', 'unordered', 'equations', 'extraction', 'matrices', 'text-percent', 'false-accepts'];

const pairs = readFileSync(new URL('../../../fixtures/grader/math-verify-agreement.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as AgreementPair);

/** math-full's grade, with the clock out of the way: steps decide, as in every grader test. */
const mathFull = (gold: string, pred: string) => gradeMath(gold, pred, { extraction: FULL_EXTRACTION, rules: 'math-verify', limits: { ...DEFAULT_GRADE_LIMITS, timeMs: 600_000 } }).correct;

describe('math-full against Math-Verify 0.8.0', () => {
  const agrees = pairs.map((pair) => mathFull(pair.gold, pair.pred) === pair.standard);
  const share = (keep: (pair: AgreementPair) => boolean) => {
    const chosen = pairs.flatMap((pair, i) => (keep(pair) ? [agrees[i]] : []));
    return { agree: chosen.filter(Boolean).length, of: chosen.length };
  };

  it('should hold at least 800 pairs, every family in both splits, both verdicts in every family', () => {
    expect(pairs.length).toBeGreaterThanOrEqual(800);
    expect(pairs.every((pair) => typeof pair.standard === 'boolean')).toBe(true);
    expect([...new Set(pairs.map((pair) => pair.family))].sort()).toEqual([...FAMILIES].sort());
    for (const family of FAMILIES) {
      for (const split of ['dev', 'held-out', 'late']) expect(pairs.some((pair) => pair.family === family && pair.split === split), `${family} ${split}`).toBe(true);
      for (const verdict of [true, false]) expect(pairs.some((pair) => pair.family === family && pair.standard === verdict), `${family} ${verdict}`).toBe(true);
    }
  });

  it('should agree on at least 90% of the pairs of each split (docs/grading.md’s numbers)', () => {
    const dev = share((pair) => pair.split === 'dev');
    const heldOut = share((pair) => pair.split === 'held-out');
    const late = share((pair) => pair.split === 'late');
    for (const split of [dev, heldOut, late]) expect(split.agree / split.of).toBeGreaterThanOrEqual(0.9);
    expect({ dev, heldOut, late }).toEqual({ dev: { agree: 810, of: 822 }, heldOut: { agree: 289, of: 294 }, late: { agree: 164, of: 164 } });
  });

  it('should differ only in the families whose differences docs/grading.md names', () => {
    const apart = new Set(pairs.filter((_, i) => !agrees[i]).map((pair) => pair.template));
    expect([...apart].sort()).toEqual(['box_units_several', 'fa_truncated_box']);
  });
});

describe('the math-full plugin', () => {
  it('should grade with Math-Verify’s rules, and math with ludus’s strict ones', () => {
    const grader = (name: string) => GRADER_PLUGINS.find((plugin) => plugin.name === name)!.create();
    expect(grader('math-full')('3, 8', '\\boxed{3}\\boxed{8}').correct).toBe(true);
    expect(grader('math')('3, 8', '\\boxed{3}\\boxed{8}').correct).toBe(false);
  });
});
