/** `\text{…}` contents and environment names (`\begin{pmatrix}`) are not words of a sentence. */
const NOT_WORDS = /\\(?:text|textbf|textit|textrm|mathrm|mbox|operatorname|begin|end)\s*\{[^{}]*\}/g;
const WORD = /(?<![\\a-zA-Z])[a-zA-Z]{2,}(?![a-zA-Z])/g;
/** Three words make a sentence: `x = 2 or x = 3` and `18 dollars` are answers, "so the total is" is not. */
const PROSE_WORDS = 3;

/**
 * Whether `text` reads as a sentence rather than an answer: `words` or more words of two letters or more;
 * `\commands` and `\text{…}` contents are not words.
 */
export function isProse(text: string, words = PROSE_WORDS): boolean {
  const plain = text.replace(NOT_WORDS, ' ');
  WORD.lastIndex = 0;
  let seen = 0;
  while (WORD.exec(plain) !== null) if (++seen >= words) return true;
  return false;
}
