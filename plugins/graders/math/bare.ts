import type { StepBudget } from './budget.ts';
import { isProse } from './prose.ts';

/** A whole response longer than this is never taken as one bare answer. */
const MAX_BARE_ANSWER = 1_000;
/** The last number is looked for in this much of the response's end. */
const NUMBER_TAIL = 10_000;
/** `-7,425,000`, `12.5`, `3/4`, `28\%`: a number as a sentence writes it. */
const NUMBER = /-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*\/\s*\d+)?(?:\s*\\?%)?/g;
/** The same, and `3,75` with a decimal comma (Math-Verify's plain numbers): thousands only in groups of three after 1-9. */
const NUMBER_DECIMAL_COMMA = /-?(?:[1-9]\d{0,2}(?:,\d{3})+(?!\d)|\d+,\d+|\d+)(?:\.\d+)?(?:\s*\/\s*\d+)?(?:\s*\\?%)?/g;
const THOUSANDS = /^-?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?$/;

/** `3,75` is 3.75 and `0,5` is 0.5, but `1,234` stays a thousand: a plain number with a decimal comma, as Math-Verify reads one. */
export function decimalComma(answer: string): string {
  return /^-?\d+,\d+$/.test(answer) && !THOUSANDS.test(answer) ? answer.replace(',', '.') : answer;
}

/**
 * The whole response when it is an answer and not a sentence (`1 000`, `-5`, `x^2+1`), else the last number
 * written near its end. Undefined when there is neither.
 */
export function bareAnswer(text: string, budget: StepBudget, lenient = false): string | undefined {
  const whole = text.trim().replace(/\.$/, '').trim();
  if (whole !== '' && whole.length <= MAX_BARE_ANSWER && !isProse(whole)) return lenient ? decimalComma(whole) : whole;
  const tail = text.slice(-NUMBER_TAIL);
  const number = lenient ? NUMBER_DECIMAL_COMMA : NUMBER;
  let last: string | undefined;
  number.lastIndex = 0;
  for (let match = number.exec(tail); match; match = number.exec(tail)) {
    budget.tick(match[0].length);
    last = match[0];
  }
  return last !== undefined && lenient ? decimalComma(last) : last;
}
