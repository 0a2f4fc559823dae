/** An exact fraction n/d in lowest terms, d > 0. */
export interface Rational {
  readonly n: bigint;
  readonly d: bigint;
}

/** Past this many bits an exact value is given up for a float, so no input can make arithmetic grow without bound. */
export const MAX_EXACT_BITS = 4096;

const abs = (x: bigint): bigint => (x < 0n ? -x : x);

function gcd(a: bigint, b: bigint): bigint {
  let x = abs(a);
  let y = abs(b);
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

export function bitLength(x: bigint): number {
  return abs(x).toString(2).length;
}

/** n/d reduced; undefined for a zero denominator. */
export function rational(n: bigint, d: bigint = 1n): Rational | undefined {
  if (d === 0n) return undefined;
  const g = gcd(n, d) || 1n;
  const sign = d < 0n ? -1n : 1n;
  return { n: (sign * n) / g, d: (sign * d) / g };
}

export const tooLarge = (q: Rational): boolean => bitLength(q.n) > MAX_EXACT_BITS || bitLength(q.d) > MAX_EXACT_BITS;

export const add = (a: Rational, b: Rational): Rational => rational(a.n * b.d + b.n * a.d, a.d * b.d)!;
export const negate = (a: Rational): Rational => ({ n: -a.n, d: a.d });
export const multiply = (a: Rational, b: Rational): Rational => rational(a.n * b.n, a.d * b.d)!;
export const divide = (a: Rational, b: Rational): Rational | undefined => rational(a.n * b.d, a.d * b.n);
export const equal = (a: Rational, b: Rational): boolean => a.n === b.n && a.d === b.d;
export const isInteger = (a: Rational): boolean => a.d === 1n;

/** a^k for an integer k; undefined for 0^negative or when the result would pass MAX_EXACT_BITS. */
export function integerPower(a: Rational, k: bigint): Rational | undefined {
  if (k < 0n) {
    const inverse = divide({ n: 1n, d: 1n }, a);
    return inverse && integerPower(inverse, -k);
  }
  const bits = Math.max(bitLength(a.n), bitLength(a.d));
  if (bits > 1 && (bits - 1) * Number(k) > MAX_EXACT_BITS) return undefined;
  return { n: a.n ** k, d: a.d ** k };
}

/** The exact k-th root of a, when a is a perfect k-th power of a rational. */
export function exactRoot(a: Rational, k: number): Rational | undefined {
  if (!Number.isInteger(k) || k < 1 || k > 64) return undefined;
  if (a.n < 0n && k % 2 === 0) return undefined;
  const n = integerRoot(abs(a.n), k);
  const d = integerRoot(a.d, k);
  if (n === undefined || d === undefined) return undefined;
  return { n: a.n < 0n ? -n : n, d };
}

function integerRoot(x: bigint, k: number): bigint | undefined {
  if (bitLength(x) > 1000) return undefined;
  const guess = BigInt(Math.round(Math.pow(Number(x), 1 / k)));
  for (const candidate of [guess - 1n, guess, guess + 1n]) if (candidate >= 0n && candidate ** BigInt(k) === x) return candidate;
  return undefined;
}

/** Integers below this convert to a float exactly. */
const SAFE = 2n ** 53n;

export function toNumber(a: Rational): number {
  if (a.n < SAFE && a.n > -SAFE && a.d < SAFE) return Number(a.n) / Number(a.d);
  const shift = Math.max(0, Math.max(bitLength(a.n), bitLength(a.d)) - 1000);
  if (shift === 0) return Number(a.n) / Number(a.d);
  const s = BigInt(shift);
  return Number(a.n >> s) / Number(a.d >> s);
}

/** `12.50`, `.5`, `1.5e3`, `2E-4` as an exact fraction; undefined when the exponent is absurd. */
export function parseDecimal(raw: string): Rational | undefined {
  if (!/\d/.test(raw)) return undefined;
  const match = /^(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/.exec(raw);
  if (!match) return undefined;
  const [, whole, fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText) - fraction.length;
  if (Math.abs(exponent) > 400) return undefined;
  const digits = BigInt(`${whole}${fraction}` || '0');
  const scale = 10n ** BigInt(Math.abs(exponent));
  return exponent >= 0 ? rational(digits * scale) : rational(digits, scale);
}
