import { Rng } from '../../../core/rng.ts';
import type { Answer } from './answer.ts';
import type { StepBudget } from './budget.ts';
import { evaluate } from './evaluate.ts';
import { freeVariables, type Expr } from './expression.ts';
import { parseExpression } from './parse-expression.ts';
import { rational, equal as sameRational } from './rational.ts';
import { Unparseable } from './unparseable.ts';
import { lenient, type GradingRules } from './rules.ts';
import { exact, isNaNValue, toNumber, type Value } from './value.ts';
import type { Relation } from './inequality.ts';
import { inequalitySet } from './inequality-set.ts';

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
export function answersEqual(gold: Answer, pred: Answer, budget: StepBudget, rules?: GradingRules): boolean {
  return new Comparison(budget, lenient(rules)).equal(gold, pred);
}

const isRelation = (answer: Answer): answer is Extract<Answer, { kind: 'equation' | 'chain' }> => answer.kind === 'equation' || answer.kind === 'chain';
const isCollection = (answer: Answer): answer is Extract<Answer, { kind: 'set' | 'list' | 'ordered' }> => answer.kind === 'set' || answer.kind === 'list' || answer.kind === 'ordered';

type Equation = { left: Expr; right: Expr };

/** One comparison of two answers; `lenient` adds Math-Verify's rules (`rules.ts`). */
class Comparison {
  constructor(
    private readonly budget: StepBudget,
    private readonly lenient: boolean,
  ) {}

  equal(gold: Answer, pred: Answer): boolean {
    const budget = this.budget;
    budget.tick();
    const a = gold;
    const b = pred;
    if (a.kind === 'named' || b.kind === 'named') return this.namedEqual(a, b);
    if (isRelation(a) || isRelation(b) || a.kind === 'inequality' || b.kind === 'inequality') return this.relationEqual(a, b);
    if (this.lenient && (a.kind === 'words' || b.kind === 'words')) return wordsEqual(a, b);
    if (a.kind === 'words' || a.kind === 'unparsed') return b.kind === a.kind && b.text === a.text;
    if (b.kind === 'words' || b.kind === 'unparsed') return false;
    if (a.kind === 'expression' && b.kind === 'expression') return this.lenient ? this.numbersEqual(a, b) : expressionsEqual(a.expr, b.expr, budget);
    if (a.kind === 'matrix' || b.kind === 'matrix') return a.kind === 'matrix' && b.kind === 'matrix' && this.matricesEqual(a.rows, b.rows);
    if (this.lenient && isCollection(a) && isCollection(b)) return this.collectionsEqual(a, b);
    if (a.kind === 'ordered' && b.kind === 'ordered') return this.orderedEqual(a, b);
    if (a.kind === 'set' && (b.kind === 'set' || b.kind === 'list')) return this.sameSet(a.items, b.items);
    if (b.kind === 'set' && a.kind === 'list') return this.sameSet(a.items, b.items);
    if ((a.kind === 'list' || a.kind === 'union') && (b.kind === 'list' || b.kind === 'union')) {
      if (this.lenient && (a.kind === 'union') !== (b.kind === 'union') && [...a.items, ...b.items].some((item) => item.kind === 'inequality')) return false;
      return this.sameMultiset(a.items, b.items);
    }
    if (a.kind === 'set' && a.items.length === 1) return this.equal(a.items[0], b);
    if (b.kind === 'set' && b.items.length === 1) return this.equal(a, b.items[0]);
    return false;
  }

  /**
   * Under Math-Verify's rules a whole number and a decimal (sympy's `Integer` against a `Float`) are equal only when
   * exactly equal: `100` = `100.0` ≠ `100.0000001`. Against a written decimal anything else is rounded to six places
   * on both sides, as sympy's `round(6)` does (ties to even): `\frac{5}{11}` = `0.454545`, `\frac{1000}{3}` ≠
   * `333.333334`, `\frac{2}{3}` ≠ `0.67`.
   */
  private numbersEqual(a: Extract<Answer, { kind: 'expression' }>, b: Extract<Answer, { kind: 'expression' }>): boolean {
    const [x, y] = [constantValue(a, this.budget), constantValue(b, this.budget)];
    if (x !== undefined && y !== undefined) {
      if ((isInteger(x) && isDecimal(y)) || (isDecimal(x) && isInteger(y))) return exactlyEqual(x, y);
      if (isDecimalLiteral(a.expr) || isDecimalLiteral(b.expr)) return roundedEqual(x, y);
    }
    return expressionsEqual(a.expr, b.expr, this.budget);
  }

  private orderedEqual(a: Extract<Answer, { kind: 'ordered' }>, b: Extract<Answer, { kind: 'ordered' }>): boolean {
    if (a.open !== b.open || a.close !== b.close || a.items.length !== b.items.length) return false;
    return a.items.every((item, i) => this.equal(item, b.items[i]));
  }

  /**
   * Math-Verify's collections: a list is a set (repeats dropped); a gold set or list matches any collection of the
   * same members in any order; a gold tuple matches a set or list of its members in the order written.
   */
  private collectionsEqual(a: Extract<Answer, { kind: 'set' | 'list' | 'ordered' }>, b: Extract<Answer, { kind: 'set' | 'list' | 'ordered' }>): boolean {
    if (a.kind === 'ordered' && b.kind === 'ordered') return this.orderedEqual(a, b);
    if (a.kind === 'ordered') {
      const members = this.distinct(b.items, a.items.length + 1);
      return a.open === '(' && members.length === a.items.length && a.items.every((item, i) => this.equal(item, members[i]));
    }
    if (b.kind === 'ordered' && b.open !== '(') return false;
    return this.sameSet(a.items, b.items);
  }

  /** Members with later repeats dropped, in the order written; no more than `most` (enough to tell a size apart). */
  private distinct(items: Answer[], most: number): Answer[] {
    const out: Answer[] = [];
    for (const item of items) {
      if (!out.some((kept) => this.equal(kept, item))) out.push(item);
      if (out.length >= most) break;
    }
    return out;
  }

  /**
   * Relations as the standard verifiers compare them (Math-Verify's README, "Why is verify function not symmetric?"):
   * a gold that is a bare value is matched by the last side of a predicted relation (`k = 45`, `AB = 4`, a chain
   * `a + b = b + a = 101`), but a gold relation is not matched by a bare value; two equations match side by side;
   * a gold inequality is matched by the interval it leaves, a gold interval not by an inequality (which a model
   * could copy from the question). Under Math-Verify's rules two equations in two or more variables also match up to
   * a nonzero factor, as solving them for one variable gives the same (`x + y = 1` against `2x + 2y = 2`, `y = x + 1`
   * against `x - y + 1 = 0`; not `x = 4` against `2x = 8`, which sympy solves to bare values Math-Verify cannot pair),
   * and two inequalities relation by relation, in order, each with the same difference either way round (`y > 4`
   * against `-y < -4`; not `3x < 15` against `x < 5`, nor `5 > x > 1` against `1 < x < 5`).
   */
  private relationEqual(gold: Answer, pred: Answer): boolean {
    if (gold.kind === 'equation' && pred.kind === 'equation') return this.equationsEqual(gold, pred);
    if (gold.kind === 'chain' && pred.kind === 'chain') return gold.text === pred.text;
    if (gold.kind === 'inequality') {
      if (pred.kind === 'inequality') return this.inequalitiesEqual(gold, pred);
      if (this.lenient && gold.parts) return this.inequalitySetEqual(gold.parts, pred);
      return pred.kind === 'ordered' && gold.interval !== undefined && this.equal(gold.interval, pred);
    }
    if (isRelation(pred) && !isRelation(gold)) return this.equal(gold, pred.last);
    return false;
  }

  /**
   * Math-Verify's gold relation against a predicted set: the relation's set (sympy's `as_set`, `inequality-set.ts`)
   * against the intervals, union or points predicted, end by end (`2 \le |w| \le 3` is `[-3, -2] \cup [2, 3]`,
   * `0 < g(t) < 2` is `(0, 2)`). A relation in more than one variable has no set, so it matches none.
   */
  private inequalitySetEqual(parts: Relation[], pred: Answer): boolean {
    const predicted = spansOf(pred, this.budget);
    if (!predicted) return false;
    const gold = inequalitySet(parts, predicted.flatMap((span) => [span.low.value, span.high.value]), this.budget);
    if (!gold || gold.length !== predicted.length) return false;
    return gold.every((span, i) => {
      const other = predicted[i];
      return span.lowClosed === other.lowClosed && span.highClosed === other.highClosed && endEqual(span.low, other.low) && endEqual(span.high, other.high);
    });
  }

  private inequalitiesEqual(gold: Extract<Answer, { kind: 'inequality' }>, pred: Extract<Answer, { kind: 'inequality' }>): boolean {
    if (this.lenient && gold.parts && pred.parts) {
      const [g, p] = [gold.parts, pred.parts];
      return g.length === p.length && g.every((relation, i) => this.sameRelation(relation, p[i]));
    }
    return gold.name === pred.name && gold.interval !== undefined && pred.interval !== undefined && this.equal(gold.interval, pred.interval);
  }

  /** Math-Verify's: the same sign (either way round) and the same difference; `3x < 24` is not `x < 8`. */
  private sameRelation(a: Relation, b: Relation): boolean {
    if (a.ne || b.ne) return a.ne === b.ne && (expressionsEqual(a.diff, b.diff, this.budget) || expressionsEqual(a.diff, { kind: 'negate', arg: b.diff }, this.budget));
    return a.strict === b.strict && expressionsEqual(a.diff, b.diff, this.budget);
  }

  /**
   * Same shape, equal cell by cell. Under Math-Verify's rules (sympy's numbers) an integer never equals a decimal
   * cell by rounding (`1` against `1.000000`), only when every cell of the two is exactly equal: a matrix of
   * fractions and a whole number is not matched by its six-decimal rounding, one without whole numbers is.
   */
  private matricesEqual(a: Answer[][], b: Answer[][]): boolean {
    if (a.length !== b.length || a.some((row, i) => row.length !== b[i].length)) return false;
    if (!a.every((row, i) => row.every((cell, j) => this.equal(cell, b[i][j])))) return false;
    if (!this.lenient) return true;
    const cells = a.flatMap((row, i) => row.map((cell, j) => [constantValue(cell, this.budget), constantValue(b[i][j], this.budget)] as const));
    const integerAgainstDecimal = cells.some(([x, y]) => x !== undefined && y !== undefined && ((isInteger(x) && isDecimal(y)) || (isDecimal(x) && isInteger(y))));
    return !integerAgainstDecimal || cells.every(([x, y]) => x !== undefined && y !== undefined && exactlyEqual(x, y));
  }

  /** Every gold member is matched by a predicted one and every predicted one matches a gold one (gold always first). */
  private sameSet(a: Answer[], b: Answer[]): boolean {
    return a.every((x) => b.some((y) => this.equal(x, y))) && b.every((y) => a.some((x) => this.equal(x, y)));
  }

  private sameMultiset(a: Answer[], b: Answer[]): boolean {
    if (this.lenient) return this.sameSet(a, b);
    if (a.length !== b.length) return false;
    const unused = [...b];
    for (const item of a) {
      const match = unused.findIndex((candidate) => this.equal(item, candidate));
      if (match < 0) return false;
      unused.splice(match, 1);
    }
    return true;
  }

  private equationsEqual(a: Equation, b: Equation): boolean {
    const same = (x: Expr, y: Expr): boolean => expressionsEqual(x, y, this.budget);
    if ((same(a.left, b.left) && same(a.right, b.right)) || (same(a.left, b.right) && same(a.right, b.left))) return true;
    if (!this.lenient) return false;
    const [x, y] = [difference(a.left, a.right), difference(b.left, b.right)];
    return freeVariables(x).size >= 2 && freeVariables(y).size >= 2 && proportional(x, y, 'nonzero', this.budget);
  }

  /**
   * A named value equals the bare value and the same name with an equal value; under different names
   * (`y = x` against `x = y`) both are read as equations.
   */
  private namedEqual(a: Answer, b: Answer): boolean {
    if (a.kind === 'named' && b.kind === 'named' && a.name === b.name) return this.equal(a.value, b.value);
    if (a.kind === 'named' && b.kind !== 'named' && b.kind !== 'equation') return this.equal(a.value, b);
    if (b.kind === 'named' && a.kind !== 'named' && a.kind !== 'equation') return this.equal(a, b.value);
    const x = asEquation(a, this.budget);
    const y = asEquation(b, this.budget);
    return x !== undefined && y !== undefined && this.equationsEqual(x, y);
  }
}

/** A relation's set of more pieces than this is no answer (each piece costs a sweep of the relation). */
const MAX_SET_PIECES = 64;

/** An end of a predicted interval: its value, and whether it was written as a decimal (sympy's `Float`). */
interface End {
  value: Value;
  decimal: boolean;
}

interface PredictedSpan {
  low: End;
  high: End;
  lowClosed: boolean;
  highClosed: boolean;
}

/**
 * A predicted set as intervals in increasing order: an interval (`(a, b)` only when a < b, else it is a point, as
 * sympy reads it), a union of intervals, or finite points. Undefined for anything else, and for more than
 * MAX_SET_PIECES pieces (looked at before any is worked out).
 */
function spansOf(answer: Answer, budget: StepBudget): PredictedSpan[] | undefined {
  const end = (item: Answer): End | undefined => {
    const value = constantValue(item, budget);
    return value === undefined || isNaNValue(value) ? undefined : { value, decimal: item.kind === 'expression' && isDecimalLiteral(item.expr) };
  };
  if (answer.kind === 'ordered') {
    if (answer.items.length !== 2) return undefined;
    const [low, high] = answer.items.map(end);
    if (!low || !high || !(toNumber(low.value) < toNumber(high.value))) return undefined;
    const closed = (e: End, bracket: boolean) => bracket && Number.isFinite(toNumber(e.value));
    return [{ low, high, lowClosed: closed(low, answer.open === '['), highClosed: closed(high, answer.close === ']') }];
  }
  const sorted = (spans: PredictedSpan[]) => spans.sort((a, b) => toNumber(a.low.value) - toNumber(b.low.value));
  if ((answer.kind === 'union' || answer.kind === 'set' || answer.kind === 'list') && answer.items.length > MAX_SET_PIECES) return undefined;
  if (answer.kind === 'union') {
    const parts = answer.items.map((item) => spansOf(item, budget));
    return parts.every((part) => part !== undefined) ? sorted(parts.flat()) : undefined;
  }
  if (answer.kind === 'set' || answer.kind === 'list') {
    const points = answer.items.map(end);
    return points.every((point) => point !== undefined) ? sorted(points.map((point) => ({ low: point, high: point, lowClosed: true, highClosed: true }))) : undefined;
  }
  return undefined;
}

/** A gold set's end against a predicted one, as Math-Verify compares numbers (`numbersEqual`). */
function endEqual(gold: Value, pred: End): boolean {
  const [x, y] = [toNumber(gold), toNumber(pred.value)];
  if (!Number.isFinite(x) || !Number.isFinite(y)) return x === y;
  if (!pred.decimal) return valuesEqual(gold, pred.value);
  return isInteger(gold) ? exactlyEqual(gold, pred.value) : roundedEqual(gold, pred.value);
}

/** The value of a cell without variables; undefined for anything else. */
function constantValue(answer: Answer, budget: StepBudget): Value | undefined {
  if (answer.kind !== 'expression' || freeVariables(answer.expr).size > 0) return undefined;
  return evaluate(answer.expr, new Map(), budget);
}

/** `0.454545`, `-2.5`: a number written with a point (sympy's `Float`), not an expression holding one. */
const isDecimalLiteral = (expr: Expr): boolean => (expr.kind === 'negate' ? isDecimalLiteral(expr.arg) : expr.kind === 'number' && expr.decimal);

/** Places Math-Verify rounds both sides to when one is a decimal (`float_rounding=6`). */
const ROUNDING_PLACES = 6;
const SCALE = 10n ** BigInt(ROUNDING_PLACES);

/** Both values rounded to six decimal places, ties to even (sympy's `round`), are the same. */
function roundedEqual(x: Value, y: Value): boolean {
  const [a, b] = [scaled(x), scaled(y)];
  return a !== undefined && b !== undefined && a === b;
}

/** The value times 10^6, rounded to the nearest whole number (ties to even); undefined when it is not finite. */
function scaled(v: Value): bigint | undefined {
  if (v.kind === 'float') {
    const x = v.x * Number(SCALE);
    if (!Number.isFinite(x)) return undefined;
    const down = Math.floor(x);
    const rest = x - down;
    return BigInt(rest > 0.5 || (rest === 0.5 && down % 2 !== 0) ? down + 1 : down);
  }
  const n = v.q.n * SCALE;
  const down = n / v.q.d - (n < 0n && n % v.q.d !== 0n ? 1n : 0n);
  const twice = 2n * (n - down * v.q.d);
  return twice > v.q.d || (twice === v.q.d && down % 2n !== 0n) ? down + 1n : down;
}

const exactlyEqual = (x: Value, y: Value): boolean => x.kind === 'exact' && y.kind === 'exact' && sameRational(x.q, y.q);
const isInteger = (v: Value): boolean => v.kind === 'exact' && !v.decimal && v.q.d === 1n;
const isDecimal = (v: Value): boolean => v.kind === 'exact' && v.decimal;

const difference = (left: Expr, right: Expr): Expr => ({ kind: 'sum', terms: [{ negative: false, expr: left }, { negative: true, expr: right }] });

/**
 * Whether `a = k·b` for one constant k (`positive`: k > 0; `nonzero`: k ≠ 0) at the seeded random points: the
 * same line, plane, curve or inequality written up to a factor. Points where `b` is 0 or either is undefined are
 * skipped; at least MIN_COMPARABLE_POINTS must be compared.
 */
function proportional(a: Expr, b: Expr, sign: 'positive' | 'nonzero', budget: StepBudget): boolean {
  const names = [...freeVariables(b, freeVariables(a))].sort();
  const rng = new Rng(SAMPLE_SEED);
  let ratio: Value | undefined;
  let compared = 0;
  for (let tries = 0; tries < MAX_SAMPLE_TRIES && compared < SAMPLE_POINTS; tries++) {
    const env = new Map(names.map((name) => [name, randomPoint(rng)]));
    const x = evaluate(a, env, budget);
    const y = evaluate(b, env, budget);
    if (isNaNValue(x) || isNaNValue(y) || toNumber(y) === 0 || !Number.isFinite(toNumber(x)) || !Number.isFinite(toNumber(y))) {
      if (names.length === 0) break;
      continue;
    }
    const k = divideValues(x, y);
    if (ratio === undefined) {
      const size = toNumber(k);
      if (size === 0 || (sign === 'positive' && size < 0)) return false;
      ratio = k;
    } else if (!valuesEqual(ratio, k)) {
      return false;
    }
    compared++;
    if (names.length === 0) break;
  }
  return names.length === 0 ? compared === 1 : compared >= MIN_COMPARABLE_POINTS;
}

function divideValues(x: Value, y: Value): Value {
  if (x.kind === 'exact' && y.kind === 'exact') {
    const q = rational(x.q.n * y.q.d, x.q.d * y.q.n);
    if (q) return exact(q, x.decimal || y.decimal);
  }
  return { kind: 'float', x: toNumber(x) / toNumber(y) };
}

/** `\text{no}` against `no` written as letters: a word equals the same letters multiplied, case aside. */
function wordsEqual(a: Answer, b: Answer): boolean {
  const text = (answer: Answer): string | undefined => (answer.kind === 'words' ? answer.text.replace(/\s+/g, '') : answer.kind === 'expression' ? lettersOf(answer.expr) : undefined);
  const x = text(a);
  const y = text(b);
  return x !== undefined && y !== undefined && x.toLowerCase() === y.toLowerCase();
}

/** `n·o` as `no`: the letters of a product of single-letter variables (and e), else undefined. */
function lettersOf(expr: Expr): string | undefined {
  if (expr.kind === 'variable') return /^[a-zA-Z]$/.test(expr.name) ? expr.name : undefined;
  if (expr.kind === 'constant') return expr.name === 'e' ? 'e' : undefined;
  if (expr.kind !== 'product' || expr.factors.some((factor) => factor.divide)) return undefined;
  const letters = expr.factors.map((factor) => lettersOf(factor.expr));
  return letters.every((l) => l !== undefined) ? letters.join('') : undefined;
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
