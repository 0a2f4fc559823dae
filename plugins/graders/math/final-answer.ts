import { firstPlainAnswer } from './plain-number.ts';
import type { StepBudget } from './budget.ts';
import { firstMathSpan } from './math-mode.ts';
import { isProse } from './prose.ts';

/** "Final Answer: The final answer is $x$. I hope it is correct." (Minerva), "The answer is 5", "Answer: 5". */
const PHRASE = /final\s+answer(?:\s*(?:is|:|=))?|answer\s*(?:is|:|=)/gi;
/** "the answer is therefore 12", "is approximately 3.5": words before a number or math are not the answer. */
const LEADING_WORDS = /^[\s*:]*(?:[a-zA-Z]{3,}\s+)+(?=[-(\[\\\d])/;
/** How much of the line after the phrase is read. */
const MAX_ANSWER_LINE = 2_000;

/**
 * What follows the last "final answer (is)" / "answer is" / "answer:" of `text`, up to the end of its line: the
 * first math span there, else the words up to the end of the sentence. Undefined when nothing follows or what
 * follows is a sentence rather than an answer.
 */
export function finalAnswerPhrase(text: string, budget: StepBudget, lenient = false): string | undefined {
  PHRASE.lastIndex = 0;
  let after = -1;
  for (let match = PHRASE.exec(text); match; match = PHRASE.exec(text)) {
    budget.tick();
    after = match.index + match[0].length;
  }
  if (after < 0) return undefined;
  const line = text.slice(after, after + MAX_ANSWER_LINE).split('\n', 1)[0];
  budget.tick(line.length);
  const math = firstMathSpan(line, lenient);
  const answer = (math ?? untilSentenceEnd(line).replace(LEADING_WORDS, '')).replace(/^[\s*:]+|[\s*]+$/g, '');
  const plain = lenient && math === undefined;
  if (answer === '' || (!plain && isProse(answer))) return undefined;
  if (!plain) return answer;
  // Math-Verify reads plain text only for numbers and digit expressions, after the last `=` when there is one:
  // "The answer is odd." has none, "Answer: \dfrac{3}{4}" only 3. Words around the number do not matter, so a chat
  // turn that follows on the same line ("answer is 99.<|im_start|>user") does not hide it.
  const equals = line.lastIndexOf('=');
  return firstPlainAnswer(` ${equals < 0 ? line : line.slice(equals + 1)}`, budget);
}

/** `5. I hope it is correct.` gives `5`; a decimal point (`3.5`) is not a sentence end. */
function untilSentenceEnd(line: string): string {
  const end = /\.(?:\s|$)/.exec(line);
  return end ? line.slice(0, end.index) : line;
}
