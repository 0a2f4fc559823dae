import * as Q from './rational.ts';
import type { Rational } from './rational.ts';

/**
 * A number as evaluated: exact while it can be (`decimal` when it came from a written decimal, which may be
 * rounded), else a float. A float is infinite only when an explicit \infty made it; overflow gives NaN.
 */
export type Value = { kind: 'exact'; q: Rational; decimal: boolean } | { kind: 'float'; x: number };

export const float = (x: number): Value => ({ kind: 'float', x });
export const NAN: Value = float(Number.NaN);

/** Past MAX_EXACT_BITS a value becomes a float, and one too large for a float is NaN: two such never match. */
export function exact(q: Rational, decimal = false): Value {
  if (!Q.tooLarge(q)) return { kind: 'exact', q, decimal };
  const x = Q.toNumber(q);
  return Number.isFinite(x) ? float(x) : NAN;
}

export const toNumber = (v: Value): number => (v.kind === 'exact' ? Q.toNumber(v.q) : v.x);
export const isNaNValue = (v: Value): boolean => v.kind === 'float' && Number.isNaN(v.x);

const bothDecimal = (a: Value, b: Value): boolean => (a.kind === 'exact' && a.decimal) || (b.kind === 'exact' && b.decimal);

/** A float result from finite inputs that came out infinite is an overflow: NaN, so it can never match. */
function floatResult(x: number, ...inputs: Value[]): Value {
  if (!Number.isFinite(x) && !Number.isNaN(x) && inputs.every((v) => Number.isFinite(toNumber(v)))) return NAN;
  return float(x);
}

export function add(a: Value, b: Value): Value {
  if (a.kind === 'exact' && b.kind === 'exact') return exact(Q.add(a.q, b.q), bothDecimal(a, b));
  return floatResult(toNumber(a) + toNumber(b), a, b);
}

export function negate(a: Value): Value {
  return a.kind === 'exact' ? { ...a, q: Q.negate(a.q) } : float(-a.x);
}

export function multiply(a: Value, b: Value): Value {
  if (a.kind === 'exact' && b.kind === 'exact') return exact(Q.multiply(a.q, b.q), bothDecimal(a, b));
  return floatResult(toNumber(a) * toNumber(b), a, b);
}

export function divide(a: Value, b: Value): Value {
  if (a.kind === 'exact' && b.kind === 'exact') {
    const q = Q.divide(a.q, b.q);
    return q ? exact(q, bothDecimal(a, b)) : NAN;
  }
  const y = toNumber(b);
  return y === 0 ? NAN : floatResult(toNumber(a) / y, a, b);
}

export function power(base: Value, exponent: Value): Value {
  if (base.kind === 'exact' && exponent.kind === 'exact') {
    const e = exponent.q;
    if (Q.isInteger(e)) {
      const q = Q.integerPower(base.q, e.n);
      if (q) return exact(q, bothDecimal(base, exponent));
      if (base.q.n === 0n && e.n < 0n) return NAN;
    } else if (e.d <= 64n) {
      const rootValue = root(base, Number(e.d));
      if (rootValue.kind === 'exact') return power(rootValue, exact({ n: e.n, d: 1n }));
    }
  }
  const x = toNumber(base);
  const y = toNumber(exponent);
  if (x < 0 && !Number.isInteger(y)) return NAN;
  return floatResult(Math.pow(x, y), base, exponent);
}

/** The k-th root; odd roots of negatives are real, even ones are NaN. */
export function root(a: Value, k: number): Value {
  if (a.kind === 'exact') {
    const q = Q.exactRoot(a.q, k);
    if (q) return exact(q, a.decimal);
  }
  const x = toNumber(a);
  if (!Number.isInteger(k) || k < 1) return k > 0 && x >= 0 ? floatResult(Math.pow(x, 1 / k), a) : NAN;
  if (x < 0) return k % 2 === 1 ? float(-Math.pow(-x, 1 / k)) : NAN;
  return floatResult(Math.pow(x, 1 / k), a);
}

const MAX_FACTORIAL = 1000;

export function factorial(a: Value, tick: (cost: number) => void): Value {
  if (a.kind !== 'exact' || !Q.isInteger(a.q) || a.q.n < 0n || a.q.n > BigInt(MAX_FACTORIAL)) return NAN;
  tick(Number(a.q.n));
  let out = 1n;
  for (let i = 2n; i <= a.q.n; i++) out *= i;
  return exact({ n: out, d: 1n });
}

const MAX_BINOMIAL = 10_000;

export function binomial(n: Value, k: Value, tick: (cost: number) => void): Value {
  if (n.kind !== 'exact' || k.kind !== 'exact' || !Q.isInteger(n.q) || !Q.isInteger(k.q)) return NAN;
  if (n.q.n < 0n || n.q.n > BigInt(MAX_BINOMIAL) || k.q.n < 0n) return NAN;
  if (k.q.n > n.q.n) return exact({ n: 0n, d: 1n });
  const kk = k.q.n < n.q.n - k.q.n ? k.q.n : n.q.n - k.q.n;
  tick(Number(kk));
  let out = 1n;
  for (let i = 1n; i <= kk; i++) out = (out * (n.q.n - kk + i)) / i;
  return exact({ n: out, d: 1n });
}
