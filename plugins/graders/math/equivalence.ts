import { Rng } from '../../../core/rng.ts';
import type { Answer } from './answer.ts';
import type { StepBudget } from './budget.ts';
import { evaluate } from './evaluate.ts';
import { freeVariables, type Expr } from './expression.ts';
import { parseExpression } from './parse-expression.ts';
import { rational, equal as sameRational } from './rational.ts';
import { Unparseable } from './unparseable.ts';
import { exact, isNaNValue, toNumber, type Value } from './value.ts';

/** Values of magnitude under 1 must agree to this fraction of their size... */
export const RELATIVE_TOLERANCE = 1e-6;
/** ...and larger ones to six decimal places, as the standard verifiers round (Math-Verify's `float_rounding=6`). */
export const DECIMAL_PLACES_TOLERANCE = 1e-6;
/** Zero is matched by anything this close to it. */
export const ABSOLUTE_TOLERANCE = 1e-9;
/** Past 10^6 a double's own rounding may pass 1e-6: magnitudes that large agree to 12 significant digits instead. */
const FLOAT_RELATIVE_FLOOR = 1e-12;

/** Same sample points on every run, so a verdict is reproducible. */
const SAMPLE_SEED = 0x1ad05;
const SAMPLE_POINTS = 6;
const MIN_COMPARABLE_POINTS = 3;
const MAX_SAMPLE_TRIES = 16;

/**
 * Exact values compare exactly unless one was written as a (possibly rounded) decimal; the rest agree when they
 * differ by at most 1e-6 of their size below 1 and by at most 1e-6 above it (six decimal places).
 */
export function valuesEqual(a: Value, b: Value): boolean {
  if (a.kind === 'exact' && b.kind === 'exact' && !a.decimal && !b.decimal) return sameRational(a.q, b.q);
  const x = toNumber(a);
  const y = toNumber(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return false;
  if (!Number.isFinite(x) || !Number.isFinite(y)) return x === y;
  const difference = Math.abs(x - y);
  const size = Math.max(Math.abs(x), Math.abs(y));
  const tolerance = Math.max(ABSOLUTE_TOLERANCE, size < 1 ? RELATIVE_TOLERANCE * size : DECIMAL_PLACES_TOLERANCE, FLOAT_RELATIVE_FLOOR * size);
  return difference <= tolerance;
}

/**
 * Two expressions are equal when they agree at the same random rational points for all their variables
 * (no variables: one evaluation). Points where either side is undefined (√ of a negative, 1/0) are skipped,
 * but at least MIN_COMPARABLE_POINTS must be compared.
 */
export function expressionsEqual(a: Expr, b: Expr, budget: StepBudget): boolean {
  const names = [...freeVariables(b, freeVariables(a))].sort();
  if (names.length === 0) return valuesEqual(evaluate(a, new Map(), budget), evaluate(b, new Map(), budget));
  const rng = new Rng(SAMPLE_SEED);
  let compared = 0;
  for (let tries = 0; tries < MAX_SAMPLE_TRIES && compared < SAMPLE_POINTS; tries++) {
    const env = new Map(names.map((name) => [name, randomPoint(rng)]));
    const x = evaluate(a, env, budget);
    const y = evaluate(b, env, budget);
    if (isNaNValue(x) || isNaNValue(y)) continue;
    if (!valuesEqual(x, y)) return false;
    compared++;
  }
  return compared >= MIN_COMPARABLE_POINTS;
}

/** A nonzero rational of either sign with a small denominator, exact so polynomials compare exactly. */
function randomPoint(rng: Rng): Value {
  const numerator = BigInt(1 + rng.int(97)) * (rng.bernoulli(0.5) ? -1n : 1n);
  return exact(rational(numerator, BigInt(1 + rng.int(13)))!);
}

/** Whether `pred` answers as `gold` does. Not symmetric where the standard verifiers are not (see `relationEqual`). */
export function answersEqual(gold: Answer, pred: Answer, budget: StepBudget): boolean {
  budget.tick();
  const a = gold;
  const b = pred;
  if (a.kind === 'named' || b.kind === 'named') return namedEqual(a, b, budget);
  if (isRelation(a) || isRelation(b) || a.kind === 'inequality' || b.kind === 'inequality') return relationEqual(a, b, budget);
  if (a.kind === 'words' || a.kind === 'unparsed') return b.kind === a.kind && b.text === a.text;
  if (b.kind === 'words' || b.kind === 'unparsed') return false;
  if (a.kind === 'expression' && b.kind === 'expression') return expressionsEqual(a.expr, b.expr, budget);
  if (a.kind === 'matrix' || b.kind === 'matrix') return a.kind === 'matrix' && b.kind === 'matrix' && matricesEqual(a.rows, b.rows, budget);
  if (a.kind === 'ordered' && b.kind === 'ordered') {
    return a.open === b.open && a.close === b.close && a.items.length === b.items.length && a.items.every((item, i) => answersEqual(item, b.items[i], budget));
  }
  if (a.kind === 'set' && (b.kind === 'set' || b.kind === 'list')) return sameSet(a.items, b.items, budget);
  if (b.kind === 'set' && a.kind === 'list') return sameSet(a.items, b.items, budget);
  if ((a.kind === 'list' || a.kind === 'union') && (b.kind === 'list' || b.kind === 'union')) return sameMultiset(a.items, b.items, budget);
  if (a.kind === 'set' && a.items.length === 1) return answersEqual(a.items[0], b, budget);
  if (b.kind === 'set' && b.items.length === 1) return answersEqual(a, b.items[0], budget);
  return false;
}

const isRelation = (answer: Answer): answer is Extract<Answer, { kind: 'equation' | 'chain' }> => answer.kind === 'equation' || answer.kind === 'chain';

/**
 * Relations as the standard verifiers compare them (Math-Verify's README, "Why is verify function not symmetric?"):
 * a gold that is a bare value is matched by the last side of a predicted relation (`k = 45`, `AB = 4`, a chain
 * `a + b = b + a = 101`), but a gold relation is not matched by a bare value; two equations match side by side;
 * a gold inequality is matched by the interval it leaves, a gold interval not by an inequality (which a model
 * could copy from the question).
 */
function relationEqual(gold: Answer, pred: Answer, budget: StepBudget): boolean {
  if (gold.kind === 'equation' && pred.kind === 'equation') return equationsEqual(gold, pred, budget);
  if (gold.kind === 'chain' && pred.kind === 'chain') return gold.text === pred.text;
  if (gold.kind === 'inequality') {
    if (pred.kind === 'inequality') return gold.name === pred.name && answersEqual(gold.interval, pred.interval, budget);
    return pred.kind === 'ordered' && answersEqual(gold.interval, pred, budget);
  }
  if (isRelation(pred) && !isRelation(gold)) return answersEqual(gold, pred.last, budget);
  return false;
}

function matricesEqual(a: Answer[][], b: Answer[][], budget: StepBudget): boolean {
  if (a.length !== b.length || a.some((row, i) => row.length !== b[i].length)) return false;
  return a.every((row, i) => row.every((cell, j) => answersEqual(cell, b[i][j], budget)));
}

function sameSet(a: Answer[], b: Answer[], budget: StepBudget): boolean {
  const covers = (xs: Answer[], ys: Answer[]): boolean => xs.every((x) => ys.some((y) => answersEqual(x, y, budget)));
  return covers(a, b) && covers(b, a);
}

function sameMultiset(a: Answer[], b: Answer[], budget: StepBudget): boolean {
  if (a.length !== b.length) return false;
  const unused = [...b];
  for (const item of a) {
    const match = unused.findIndex((candidate) => answersEqual(item, candidate, budget));
    if (match < 0) return false;
    unused.splice(match, 1);
  }
  return true;
}

type Equation = { left: Expr; right: Expr };

function equationsEqual(a: Equation, b: Equation, budget: StepBudget): boolean {
  const same = (x: Expr, y: Expr): boolean => expressionsEqual(x, y, budget);
  return (same(a.left, b.left) && same(a.right, b.right)) || (same(a.left, b.right) && same(a.right, b.left));
}

/**
 * A named value equals the bare value and the same name with an equal value; under different names
 * (`y = x` against `x = y`) both are read as equations.
 */
function namedEqual(a: Answer, b: Answer, budget: StepBudget): boolean {
  if (a.kind === 'named' && b.kind === 'named' && a.name === b.name) return answersEqual(a.value, b.value, budget);
  if (a.kind === 'named' && b.kind !== 'named' && b.kind !== 'equation') return answersEqual(a.value, b, budget);
  if (b.kind === 'named' && a.kind !== 'named' && a.kind !== 'equation') return answersEqual(a, b.value, budget);
  const x = asEquation(a, budget);
  const y = asEquation(b, budget);
  return x !== undefined && y !== undefined && equationsEqual(x, y, budget);
}

function asEquation(answer: Answer, budget: StepBudget): Equation | undefined {
  if (answer.kind === 'equation') return answer;
  if (answer.kind !== 'named' || answer.value.kind !== 'expression') return undefined;
  try {
    return { left: parseExpression(answer.name, budget), right: answer.value.expr };
  } catch (error) {
    if (error instanceof Unparseable) return undefined;
    throw error;
  }
}
