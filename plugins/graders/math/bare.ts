import type { StepBudget } from './budget.ts';
import { lastPlainAnswer } from './plain-number.ts';
import { isProse } from './prose.ts';

/** A whole response longer than this is never taken as one bare answer. */
const MAX_BARE_ANSWER = 1_000;
/** The last number is looked for in this much of the response's end. */
const NUMBER_TAIL = 10_000;
/** `-7,425,000`, `12.5`, `3/4`, `28\%`: a number as a sentence writes it. */
const NUMBER = /-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*\/\s*\d+)?(?:\s*\\?%)?/g;
/**
 * The whole response when it is an answer and not a sentence (`1 000`, `-5`, `x^2+1`), else the last number
 * written near its end. Undefined when there is neither. `lenient` (Math-Verify's rules): the plain number or
 * expression that ends last (`plain-number.ts`), a short response too (`x+1` has none; `1+x` has `1`).
 */
export function bareAnswer(text: string, budget: StepBudget, lenient = false): string | undefined {
  if (lenient) return lastPlainAnswer(text.slice(-NUMBER_TAIL), budget);
  const whole = text.trim().replace(/\.$/, '').trim();
  if (whole !== '' && whole.length <= MAX_BARE_ANSWER && !isProse(whole)) return whole;
  const tail = text.slice(-NUMBER_TAIL);
  let last: string | undefined;
  NUMBER.lastIndex = 0;
  for (let match = NUMBER.exec(tail); match; match = NUMBER.exec(tail)) {
    budget.tick(match[0].length);
    last = match[0];
  }
  return last;
}
