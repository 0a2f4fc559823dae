import type { StepBudget } from './budget.ts';
import type { Expr } from './expression.ts';
import { parseExpression } from './parse-expression.ts';
import { splitTopLevelAny } from './top-level.ts';
import { Unparseable } from './unparseable.ts';

/** Relation signs: `<` and `>` and their TeX names (`≤`, `≥` are turned into `\le`, `\ge` by normalization). */
const LESS = new Map([['<', false], ['\\lt', false], ['\\le', true], ['\\leq', true], ['\\leqslant', true]]);
const GREATER = new Map([['>', false], ['\\gt', false], ['\\ge', true], ['\\geq', true], ['\\geqslant', true]]);
const SIGNS: ReadonlySet<string> = new Set([...LESS.keys(), ...GREATER.keys()]);
/** `x`, `x_1`, `\theta`: the variable an inequality bounds. */
const VARIABLE = /^(?:[a-zA-Z]|\\[a-zA-Z]+)(?:_(?:\{[^{}]*\}|[a-zA-Z0-9]))?$/;

/** The interval an inequality leaves its variable: bounds as LaTeX, brackets closed where the sign allows equality. */
export interface Bounds {
  name: string;
  low: string;
  high: string;
  open: '(' | '[';
  close: ')' | ']';
}

/** `x > 3`, `3 \le x`, `-1 < x \le 2`, `5 > x > 1` as the interval of `x` they leave; undefined for anything else. */
export function inequality(text: string): Bounds | undefined {
  const { parts, separators } = splitTopLevelAny(text, SIGNS);
  if (separators.length === 0 || parts.some((p) => p === '')) return undefined;
  const sign = (s: string) => ({ less: LESS.has(s), inclusive: (LESS.get(s) ?? GREATER.get(s))! });
  if (separators.length === 1) {
    const { less, inclusive } = sign(separators[0]);
    const [left, right] = parts;
    if (VARIABLE.test(left)) return less ? below(left, right, inclusive) : above(left, right, inclusive);
    if (VARIABLE.test(right)) return less ? above(right, left, inclusive) : below(right, left, inclusive);
    return undefined;
  }
  if (separators.length !== 2 || !VARIABLE.test(parts[1])) return undefined;
  const [first, second] = separators.map(sign);
  if (first.less !== second.less) return undefined;
  const [low, high] = first.less ? [parts[0], parts[2]] : [parts[2], parts[0]];
  const [lowInclusive, highInclusive] = first.less ? [first.inclusive, second.inclusive] : [second.inclusive, first.inclusive];
  return { name: parts[1], low, high, open: lowInclusive ? '[' : '(', close: highInclusive ? ']' : ')' };
}

const below = (name: string, high: string, inclusive: boolean): Bounds => ({ name, low: '-\\infty', high, open: '(', close: inclusive ? ']' : ')' });
const above = (name: string, low: string, inclusive: boolean): Bounds => ({ name, low, high: '\\infty', open: inclusive ? '[' : '(', close: ')' });

/**
 * One relation of an inequality as `diff < 0` (strict) or `diff ≤ 0`: `x > 3` is `3 - x < 0`; with `ne`, `diff ≠ 0`
 * (`x \neq 3` is `x - 3 ≠ 0`).
 */
export interface Relation {
  strict: boolean;
  diff: Expr;
  ne?: boolean;
}

/** `g(t)`: a function of one letter, which sympy's `unwrap_fcs` makes the one symbol `g_t`. */
const CALL_OF_LETTER = /(?<![\\a-zA-Z])([a-zA-Z])\(\s*([a-zA-Z])\s*\)/g;

/** Signs a relation of Math-Verify's reading may have: those of an inequality and `\neq`. */
const PART_SIGNS: ReadonlySet<string> = new Set([...SIGNS, '\\neq']);

/**
 * `2x + 1 > 5`, `-y < -4`, `a < x \le b`: each relation of the chain in order, both sides parsed; undefined when there
 * is no relation sign or a side does not parse. A side's `g(t)` is the one variable `g_t`, as sympy unwraps a call.
 */
export function relationParts(text: string, budget: StepBudget): Relation[] | undefined {
  const { parts, separators } = splitTopLevelAny(text, PART_SIGNS);
  if (separators.length === 0 || parts.some((p) => p === '')) return undefined;
  try {
    const sides = parts.map((part) => parseExpression(part.replace(CALL_OF_LETTER, '$1_{$2}'), budget));
    return separators.map((sign, i) => {
      if (sign === '\\neq') return { strict: true, ne: true, diff: { kind: 'sum', terms: [{ negative: false, expr: sides[i] }, { negative: true, expr: sides[i + 1] }] } };
      const less = LESS.has(sign);
      const [low, high] = less ? [sides[i], sides[i + 1]] : [sides[i + 1], sides[i]];
      return { strict: !(LESS.get(sign) ?? GREATER.get(sign)), diff: { kind: 'sum', terms: [{ negative: false, expr: low }, { negative: true, expr: high }] } };
    });
  } catch (error) {
    if (error instanceof Unparseable) return undefined;
    throw error;
  }
}
