import { isSafeNumber, parse } from 'lossless-json';

/** A parsed number that may not be the one written: an integer past 2^53, or one that overflowed to ±Infinity. */
const mayBeRounded = (value: unknown): boolean => typeof value === 'number' && (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value)));

/**
 * `JSON.parse`, except that an integer a double cannot hold exactly (past 2^53) or a number that overflows (1e400)
 * comes back as the string it was written as, so a gold answer of 12345678901234567890 is not rounded into
 * 12345678901234567000 and matched by a wrong answer. Such lines are parsed twice, the second time by
 * lossless-json (about 0.5 s per megabyte); other lines pay only `JSON.parse` with a reviver. Throws a SyntaxError
 * on text that is not JSON.
 */
export function parseJsonExactNumbers(text: string): unknown {
  let rounded = false;
  const value: unknown = JSON.parse(text, (_key, v: unknown) => {
    if (mayBeRounded(v)) rounded = true;
    return v;
  });
  return rounded ? parse(text, null, (digits) => (isSafeNumber(digits) ? Number(digits) : digits)) : value;
}
