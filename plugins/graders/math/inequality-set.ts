import type { StepBudget } from './budget.ts';
import { evaluate } from './evaluate.ts';
import { freeVariables } from './expression.ts';
import type { Relation } from './inequality.ts';
import * as Q from './rational.ts';
import { add, divide, exact, float, isNaNValue, multiply, negate, toNumber, type Value } from './value.ts';

/** An interval of the real line; an end at ±∞ is a float infinity and open. A single point is `[a, a]`. */
export interface Span {
  low: Value;
  high: Value;
  lowClosed: boolean;
  highClosed: boolean;
}

/** A point and its float, so sorting never converts a fraction twice. */
interface Point {
  v: Value;
  x: number;
}

const point = (v: Value): Point => ({ v, x: toNumber(v) });

/**
 * Where sign changes are looked for, with the predicted set's ends: every whole number in [-16, 16] and powers of two
 * out to about a million. Between two neighbours a change of sign is a zero (or a pole), found exactly or by bisection.
 */
const GRID: readonly Point[] = [
  ...Array.from({ length: 33 }, (_, i) => i - 16),
  ...Array.from({ length: 16 }, (_, i) => 2 ** (i + 5)).flatMap((x) => [x, -x]),
].map((x) => point(exact(Q.rational(BigInt(x))!)));
const BISECTIONS = 64;
/** A chain of more relations than this is no answer; each relation is swept over the grid and checked at every piece. */
const MAX_RELATIONS = 16;

/**
 * The set of the one variable of an inequality chain (`2 \le |w| \le \frac{5}{2}`, `|y + 3| < 5`, `0 < g(t) < 2`)
 * as intervals in increasing order: what sympy's `as_set` gives Math-Verify for a gold relation against a predicted
 * set. Undefined unless the chain has exactly one variable (and at most MAX_RELATIONS relations). The boundaries are the zeros of each relation's difference
 * of sides, found where its sign changes between points of a grid (with the predicted set's ends, `hints`, among
 * them) and made exact when the difference is linear there; the set is then read off piece by piece.
 */
export function inequalitySet(parts: readonly Relation[], hints: readonly Value[], budget: StepBudget): Span[] | undefined {
  if (parts.length > MAX_RELATIONS) return undefined;
  const names = new Set<string>();
  for (const part of parts) freeVariables(part.diff, names);
  if (names.size !== 1) return undefined;
  const [name] = names;
  const env = new Map<string, Value>();
  const at = (i: number, x: Value): Value => evaluate(parts[i].diff, env.set(name, x), budget);
  const holds = (x: Value, zeroOf = new Set<number>()): boolean =>
    parts.every((part, i) => {
      if (zeroOf.has(i)) return !part.strict && !part.ne;
      const y = at(i, x);
      if (isNaNValue(y)) return false;
      const sign = signOf(y);
      if (part.ne) return sign !== 0;
      return part.strict ? sign < 0 : sign <= 0;
    });

  const grid = sortedUnique([...GRID, ...hints.map(point).filter((h) => Number.isFinite(h.x))], budget).map((p) => p.v);
  // Boundaries: zeros of a difference (`of` names the relations that vanish there) and points where one is undefined.
  const roots: { at: Point; of: Set<number>; pole: boolean }[] = [];
  const addRoot = (x: Value, i?: number) => {
    budget.tick(roots.length);
    const same = roots.find((root) => sameNumber(root.at.v, x));
    const root = same ?? { at: point(x), of: new Set<number>(), pole: false };
    if (i === undefined) root.pole = true;
    else root.of.add(i);
    if (!same) roots.push(root);
  };
  for (let i = 0; i < parts.length; i++) {
    const values = grid.map((x) => at(i, x));
    for (let j = 0; j < grid.length; j++) {
      const sign = signOf(values[j]);
      if (sign === 0) addRoot(grid[j], i);
      if (Number.isNaN(sign)) addRoot(grid[j]);
      if (j + 1 < grid.length && sign * signOf(values[j + 1]) < 0) {
        const zero = zeroBetween(grid[j], grid[j + 1], values[j], values[j + 1], (x) => at(i, x));
        addRoot(zero.x, zero.pole ? undefined : i);
      }
    }
  }
  roots.sort((a, b) => a.at.x - b.at.x);

  // Pieces left to right: the open stretch before each boundary, then the boundary itself.
  const spans: Span[] = [];
  const include = (low: Value, high: Value, lowClosed: boolean, highClosed: boolean) => {
    const last = spans[spans.length - 1];
    if (last && sameNumber(last.high, low) && (last.highClosed || lowClosed)) spans[spans.length - 1] = { ...last, high, highClosed };
    else spans.push({ low, high, lowClosed, highClosed });
  };
  let from: Value = float(Number.NEGATIVE_INFINITY);
  for (const { at: root, of, pole } of roots) {
    if (holds(middle(from, root.v))) include(from, root.v, false, false);
    if (!pole && holds(root.v, of)) include(root.v, root.v, true, true);
    from = root.v;
  }
  if (holds(middle(from, float(Number.POSITIVE_INFINITY)))) include(from, float(Number.POSITIVE_INFINITY), false, false);
  return spans;
}

function signOf(v: Value): number {
  if (v.kind === 'exact') return v.q.n === 0n ? 0 : v.q.n > 0n ? 1 : -1;
  return Number.isNaN(v.x) ? Number.NaN : Math.sign(v.x);
}

function sameNumber(a: Value, b: Value): boolean {
  if (a.kind === 'exact' && b.kind === 'exact') return Q.equal(a.q, b.q);
  const [x, y] = [toNumber(a), toNumber(b)];
  return x === y || Math.abs(x - y) <= 1e-12 * Math.max(1, Math.abs(x), Math.abs(y));
}

function sortedUnique(points: Point[], budget: StepBudget): Point[] {
  budget.tick(points.length);
  const sorted = [...points].sort((a, b) => a.x - b.x);
  return sorted.filter((p, i) => i === 0 || !sameNumber(sorted[i - 1].v, p.v));
}

const TWO = exact(Q.rational(2n)!);

/** A point strictly between two boundaries (one past the last when the other is infinite). */
function middle(low: Value, high: Value): Value {
  const [x, y] = [toNumber(low), toNumber(high)];
  if (x === Number.NEGATIVE_INFINITY && y === Number.POSITIVE_INFINITY) return exact(Q.rational(0n)!);
  if (x === Number.NEGATIVE_INFINITY) return add(high, exact(Q.rational(-1n)!));
  if (y === Number.POSITIVE_INFINITY) return add(low, exact(Q.rational(1n)!));
  return divide(add(low, high), TWO);
}

/** Past this size a difference at the end of a bisection was a pole (`\frac{1}{x - a}`), not a zero. */
const POLE = 1e-6;

/**
 * Where the sign of a difference changes between a and b: its zero, exact where the difference is linear there (the
 * secant's zero is a zero), else found by bisection; or a pole, where it is undefined.
 */
function zeroBetween(a: Value, b: Value, fa: Value, fb: Value, f: (x: Value) => Value): { x: Value; pole: boolean } {
  const secant = add(a, negate(divide(multiply(fa, add(b, negate(a))), add(fb, negate(fa)))));
  if (secant.kind === 'exact' && signOf(f(secant)) === 0) return { x: secant, pole: false };
  let [low, high] = [toNumber(a), toNumber(b)];
  const rising = signOf(fa) < 0;
  for (let i = 0; i < BISECTIONS; i++) {
    const mid = (low + high) / 2;
    const sign = signOf(f(float(mid)));
    if (sign === 0) return { x: float(mid), pole: false };
    if (Number.isNaN(sign)) return { x: float(mid), pole: true };
    if (sign < 0 === rising) low = mid;
    else high = mid;
  }
  const x = float((low + high) / 2);
  return { x, pole: !(Math.abs(toNumber(f(x))) <= POLE) };
}
