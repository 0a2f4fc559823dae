import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GRADER_PLUGINS } from '../../../../plugins/graders/grader-plugins.ts';
import { DEFAULT_GRADE_LIMITS } from '../../../../plugins/graders/math/budget.ts';
import { FULL_EXTRACTION } from '../../../../plugins/graders/math/extract.ts';
import { gradeMath } from '../../../../plugins/graders/math/grade-math.ts';

/**
 * A pair of test/fixtures/grader/math-verify-agreement.jsonl: drawn by tools/python/agreement_pairs.py from a template
 * of ours in one of an issue's families, with Math-Verify 0.8.0's verdict (`standard`, measured by
 * tools/python/math_verify_verdicts.py one pair at a time). `held-out` templates were never looked at pair by pair
 * while the rules were written; `late` ones were written after the rules, as whole solutions. `pass` says which round
 * of rules the pair was written for: the second (the families of the first agreement fixture) or the third.
 */
interface AgreementPair {
  pass: 2 | 3;
  family: string;
  template: string;
  split: 'dev' | 'held-out' | 'late';
  gold: string;
  pred: string;
  standard: boolean | null;
}

const FAMILIES: Record<AgreementPair['pass'], string[]> = {
  2: ['decimal-comma', 'relations', 'labelled', 'several-boxes', 'unordered', 'equations', 'extraction', 'matrices', 'text-percent', 'false-accepts'],
  3: ['equation-rhs', 'intervals', 'computed', 'decimal-comma', 'prose', 'any-order', 'false-accepts'],
};
const SPLITS = ['dev', 'held-out', 'late'] as const;

/** docs/grading.md's figures, pair by pair as measured. */
const PINNED = {
  2: { dev: { agree: 810, of: 822 }, 'held-out': { agree: 289, of: 294 }, late: { agree: 164, of: 164 } },
  3: { dev: { agree: 364, of: 367 }, 'held-out': { agree: 147, of: 149 }, late: { agree: 109, of: 109 } },
};
/** The templates graded apart from Math-Verify, each a difference docs/grading.md names. */
const APART = ['ao_function_values', 'box_units_several', 'eqr_abs_label', 'fa_truncated_box'];

const pairs = readFileSync(new URL('../../../fixtures/grader/math-verify-agreement.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as AgreementPair);

/** math-full's grade, with the clock out of the way: steps decide, as in every grader test. */
const mathFull = (gold: string, pred: string) => gradeMath(gold, pred, { extraction: FULL_EXTRACTION, rules: 'math-verify', limits: { ...DEFAULT_GRADE_LIMITS, timeMs: 600_000 } }).correct;

describe('math-full against Math-Verify 0.8.0', () => {
  const agrees = pairs.map((pair) => mathFull(pair.gold, pair.pred) === pair.standard);
  const share = (pass: AgreementPair['pass'], split: AgreementPair['split']) => {
    const chosen = pairs.flatMap((pair, i) => (pair.pass === pass && pair.split === split ? [agrees[i]] : []));
    return { agree: chosen.filter(Boolean).length, of: chosen.length };
  };

  it('should hold every family of each pass in every split, with both verdicts, and 300 pairs or more of the third', () => {
    expect(pairs.every((pair) => typeof pair.standard === 'boolean')).toBe(true);
    expect(pairs.filter((pair) => pair.pass === 2).length).toBe(1280);
    expect(pairs.filter((pair) => pair.pass === 3).length).toBeGreaterThanOrEqual(300);
    for (const pass of [2, 3] as const) {
      const inPass = pairs.filter((pair) => pair.pass === pass);
      expect([...new Set(inPass.map((pair) => pair.family))].sort()).toEqual([...FAMILIES[pass]].sort());
      for (const family of FAMILIES[pass]) {
        for (const split of SPLITS) expect(inPass.some((pair) => pair.family === family && pair.split === split), `${pass} ${family} ${split}`).toBe(true);
        for (const verdict of [true, false]) expect(inPass.some((pair) => pair.family === family && pair.standard === verdict), `${pass} ${family} ${verdict}`).toBe(true);
      }
    }
  });

  it('should agree as docs/grading.md says: 97% or more of the third pass’s held-out pairs, 90% or more of every split', () => {
    const measured = Object.fromEntries(([2, 3] as const).map((pass) => [pass, Object.fromEntries(SPLITS.map((split) => [split, share(pass, split)]))]));
    for (const pass of [2, 3] as const) for (const split of SPLITS) expect(measured[pass][split].agree / measured[pass][split].of).toBeGreaterThanOrEqual(0.9);
    expect(measured[3]['held-out'].agree / measured[3]['held-out'].of).toBeGreaterThanOrEqual(0.97);
    expect(measured).toEqual(PINNED);
  });

  it('should differ only in the templates whose differences docs/grading.md names', () => {
    const apart = new Set(pairs.filter((_, i) => !agrees[i]).map((pair) => pair.template));
    expect([...apart].sort()).toEqual(APART);
  });
});

describe('the math-full plugin', () => {
  it('should grade with Math-Verify’s rules, and math with ludus’s strict ones', () => {
    const grader = (name: string) => GRADER_PLUGINS.find((plugin) => plugin.name === name)!.create();
    expect(grader('math-full')('3, 8', '\\boxed{3}\\boxed{8}').correct).toBe(true);
    expect(grader('math')('3, 8', '\\boxed{3}\\boxed{8}').correct).toBe(false);
  });
});
