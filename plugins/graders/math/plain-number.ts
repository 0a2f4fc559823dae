import type { StepBudget } from './budget.ts';

/**
 * Math-Verify's reading of plain text (outside math delimiters): only numbers and expressions of digits and
 * operators are answers there. A number: `1,234.5` / `1 234` (groups of three after 1-9), `3,75` / `3.75` (a decimal
 * comma or point), `.5`, `42`, each maybe followed by a percent (`%`, "percent", "pct"); it starts a line or follows a
 * space or `=`, maybe after a currency sign. An expression: digits with at least one of `+ - * × / ^ ( ) ÷`, followed by
 * a space, `.`, `,`, `:`, `)`, `$` or the end (`3/4`, `2^10`, `(1+2)*3`). And `\frac{1}{2}` of two plain numbers,
 * the one piece of LaTeX Math-Verify reads outside math delimiters.
 */
const PREFIX = String.raw`(?:^|(?<=[\s=]))(?:\*\*)?[$€£¥₹]?`;
const PERCENT = String.raw`(?:\s*(?:%|[Pp]ercent(?:age)?|[Pp]ct)\b|\s*%)?`;
const NUMBER = String.raw`-?(?:[1-9]\d{0,2}(?:[ ,]\d{3})+(?:\.\d+)?|\d+[.,]\d+|\.\d+|\d+)(?!\d)`;
const OPERATORS = String.raw`+\-*×/^()÷`;
const EXPRESSION_CHARS = String.raw`[\d.\s${OPERATORS}]`;
/** Ending in a digit or `)`: `42**` (bold) is the number 42, not an expression sympy could not parse. */
const EXPRESSION = String.raw`-?\(?-?\d${EXPRESSION_CHARS}*[${OPERATORS}]${EXPRESSION_CHARS}*[\d)](?=(?:\*\*)?(?:[.,:\s)$]|$))`;
/** `\frac{1}{2}` of plain numbers is LaTeX Math-Verify finds even outside math delimiters. */
const SIMPLE_FRACTION = String.raw`-?\\frac\{-?\d+(?:[.,]\d+)?\}\{-?\d+(?:[.,]\d+)?\}`;
const SIMPLE = new RegExp(SIMPLE_FRACTION, 'g');
const PLAIN = new RegExp(`${PREFIX}(?:(${EXPRESSION})|(${NUMBER}${PERCENT}))`, 'g');
/** A plain run that ends in spaces or a full stop: these belong to the sentence, not the expression. */
const TRAILING = /[\s.]+$/;

/** `1 000 000`, `1,234.5`: digits in groups of three after 1-9, separated by commas or spaces. */
const GROUPED = /^-?[1-9]\d{0,2}(?:([ ,])\d{3})(?:\1\d{3})*(?:\.\d+)?/;

/**
 * A plain-text number as Math-Verify reads one: `3,75` is 3.75 and `0,5` is 0.5, but `1,234` stays a thousand and
 * `1 000 000` (spaces between groups of three, outside math) is a million; a percent stays (`12%`).
 */
export function plainNumber(answer: string): string {
  const grouped = GROUPED.exec(answer);
  if (grouped) return grouped[0].replace(/[ ,]/g, '') + answer.slice(grouped[0].length);
  return answer.replace(/^(-?\d+),(\d+)/, '$1.$2');
}

/** Runs of the characters a plain expression is made of: found in one pass, without backtracking. */
const RUN = /[\d.\s+\-*×/^()÷]+/g;
/** Past this many characters a run is only read at its end (or its start, for the first answer). */
const MAX_RUN = 256;
/** Room around a run for a currency sign or `**` before it and a percent word after it. */
const BEFORE_RUN = 3;
const AFTER_RUN = 12;

/**
 * Every plain answer of `text` with where it ends. The patterns backtrack, so they only ever run over a window of
 * at most MAX_RUN characters around one run of expression characters: time stays linear in `text`, whatever it holds.
 */
function* plainAnswers(text: string, budget: StepBudget, from: 'start' | 'end'): Generator<{ end: number; answer: string }> {
  RUN.lastIndex = 0;
  for (let run = RUN.exec(text); run; run = RUN.exec(text)) {
    budget.tick(run[0].length);
    if (!/\d/.test(run[0])) continue;
    const start = from === 'end' ? Math.max(run.index, RUN.lastIndex - MAX_RUN) : run.index;
    const end = from === 'start' ? Math.min(RUN.lastIndex, run.index + MAX_RUN) : RUN.lastIndex;
    const windowStart = Math.max(0, start - BEFORE_RUN);
    yield* matchesIn(text.slice(windowStart, end + AFTER_RUN), windowStart, budget);
  }
  SIMPLE.lastIndex = 0;
  for (let match = SIMPLE.exec(text); match; match = SIMPLE.exec(text)) {
    budget.tick(match[0].length);
    yield { end: match.index + match[0].length, answer: match[0] };
  }
}

function* matchesIn(window: string, offset: number, budget: StepBudget): Generator<{ end: number; answer: string }> {
  PLAIN.lastIndex = 0;
  for (let match = PLAIN.exec(window); match; match = PLAIN.exec(window)) {
    budget.tick(match[0].length + 1);
    const raw = (match[1] ?? match[2]).replace(TRAILING, '');
    if (raw !== '') yield { end: offset + match.index + match[0].length, answer: match[1] !== undefined ? raw : plainNumber(raw) };
    if (match[0].length === 0) PLAIN.lastIndex++;
  }
}

/** The first plain number or expression of `text` (what follows "the answer is"), read as Math-Verify does. */
export function firstPlainAnswer(text: string, budget: StepBudget): string | undefined {
  let first: { end: number; answer: string } | undefined;
  for (const found of plainAnswers(text, budget, 'start')) if (first === undefined || found.end < first.end) first = found;
  return first?.answer;
}

/** The plain number or expression of `text` that ends last (a response's final number), read as Math-Verify does. */
export function lastPlainAnswer(text: string, budget: StepBudget): string | undefined {
  let last: { end: number; answer: string } | undefined;
  for (const found of plainAnswers(text, budget, 'end')) if (last === undefined || found.end >= last.end) last = found;
  return last?.answer;
}
