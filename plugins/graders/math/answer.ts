import type { StepBudget } from './budget.ts';
import type { Expr } from './expression.ts';
import type { NormalizedAnswer } from './normalize.ts';
import { parseExpression } from './parse-expression.ts';
import { rational } from './rational.ts';
import { enclosingBrackets, splitTopLevel } from './top-level.ts';
import { Unparseable } from './unparseable.ts';

/** The shape of a final answer, which decides how two answers are compared. */
export type Answer =
  | { kind: 'expression'; expr: Expr }
  | { kind: 'equation'; left: Expr; right: Expr }
  /** `x = 3`, `f(x) = x^2`, `x \in [0, 1)`: a value given a name; it equals the bare value too. */
  | { kind: 'named'; name: string; value: Answer }
  /** Points, tuples, vectors and intervals: brackets and order matter. */
  | { kind: 'ordered'; open: '(' | '['; close: ')' | ']'; items: Answer[] }
  /** `\{…\}`: order and repeats do not matter. */
  | { kind: 'set'; items: Answer[] }
  /** Bare `a, b` ("all solutions, separated by commas"): order does not matter, repeats do. */
  | { kind: 'list'; items: Answer[] }
  | { kind: 'union'; items: Answer[] }
  | { kind: 'words'; text: string }
  | { kind: 'unparsed'; text: string };

const EMPTY_SET = /^\\(?:emptyset|varnothing)$/;
const THOUSANDS = /^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
const PLUS_MINUS = /\\(?:pm|mp)(?![a-zA-Z])/;
/** `x`, `x_1`, `\theta`, `f(x)`, `y'`: a left-hand side that only names the answer. */
const ANSWER_NAME = /^(?:[a-zA-Z]|\\[a-zA-Z]+)(?:_(?:\{[^{}]*\}|[a-zA-Z0-9]))?'*(?:\([^()]*\))?$/;
const MIXED_NUMBER = /^([-+]?)(\d+)\s*(?:\\frac(?:\{(\d+)\}|(\d))(?:\{(\d+)\}|(\d))|\s(\d+)\/(\d+))$/;

export function parseAnswer(normalized: NormalizedAnswer, budget: StepBudget): Answer {
  if (normalized.worded) return { kind: 'words', text: wordsOf(normalized.latex) };
  return structure(normalized.latex, budget, 1);
}

/** Worded answers compare case-blind with spacing and LaTeX escapes ignored. */
export function wordsOf(latex: string): string {
  return latex.toLowerCase().replace(/\\/g, '').replace(/\s+/g, ' ').trim();
}

export const compact = (text: string): string => text.replace(/\s+/g, '');

function structure(text: string, budget: StepBudget, depth: number): Answer {
  budget.enter(depth);
  const inner = (part: string): Answer => structure(part, budget, depth + 1);
  if (EMPTY_SET.test(text)) return { kind: 'set', items: [] };
  const union = splitTopLevel(text, '\\cup');
  if (union.length > 1) return { kind: 'union', items: union.map(inner) };
  if (THOUSANDS.test(text)) return leaf(text.replace(/,/g, ''), budget);
  const enclosed = enclosingBrackets(text);
  if (enclosed?.open === '\\{') return { kind: 'set', items: splitTopLevel(enclosed.inner, ',').filter((p) => p !== '').map(inner) };
  if (enclosed && enclosed.close !== '\\}') {
    const items = splitTopLevel(enclosed.inner, ',');
    if (items.length > 1) return { kind: 'ordered', open: enclosed.open, close: enclosed.close, items: items.map(inner) };
  }
  const items = splitTopLevel(text, ',');
  if (items.length > 1) return { kind: 'list', items: items.map(inner) };
  const sides = splitTopLevel(text, '=');
  if (sides.length > 1) {
    const value = sides[sides.length - 1];
    if (sides.slice(0, -1).every((side) => ANSWER_NAME.test(side))) return { kind: 'named', name: compact(sides[sides.length - 2]), value: inner(value) };
    return sides.length === 2 ? equation(text, sides[0], sides[1], budget) : unparsed(text);
  }
  return leaf(text, budget);
}

/** `a \pm b` is the list of both; `2\frac{1}{2}` (a whole number before a proper fraction) is the mixed number 5/2. */
function leaf(text: string, budget: StepBudget): Answer {
  if (text.match(new RegExp(PLUS_MINUS, 'g'))?.length === 1) {
    return { kind: 'list', items: ['+', '-'].map((sign) => leaf(text.replace(PLUS_MINUS, sign), budget)) };
  }
  const mixed = mixedNumber(text);
  if (mixed) return { kind: 'expression', expr: mixed };
  try {
    return { kind: 'expression', expr: parseExpression(text, budget) };
  } catch (error) {
    if (error instanceof Unparseable) return unparsed(text);
    throw error;
  }
}

function mixedNumber(text: string): Expr | undefined {
  const match = MIXED_NUMBER.exec(text);
  if (!match) return undefined;
  const [, sign, whole, ...parts] = match;
  const [numerator, denominator] = parts.filter((p) => p !== undefined).map(BigInt);
  if (denominator === 0n || numerator >= denominator) return undefined;
  const n = BigInt(whole) * denominator + numerator;
  return { kind: 'number', value: rational(sign === '-' ? -n : n, denominator)!, decimal: false };
}

function equation(text: string, left: string, right: string, budget: StepBudget): Answer {
  try {
    return { kind: 'equation', left: parseExpression(left, budget), right: parseExpression(right, budget) };
  } catch (error) {
    if (error instanceof Unparseable) return unparsed(text);
    throw error;
  }
}

const unparsed = (text: string): Answer => ({ kind: 'unparsed', text: compact(text) });
