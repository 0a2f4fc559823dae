import { randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh per-run secret: printed once at start, required for every control action on that run. */
export function newControlToken(): string {
  return randomBytes(18).toString('base64url');
}

/** Compares in constant time, so a refused token says nothing about how close it was. */
export function tokensMatch(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
