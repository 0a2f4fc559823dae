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

/** Runs of the characters a plain number or expression is made of: found in one pass, without backtracking. */
const RUN = /[\d.,\s+\-*×/^()÷]+/g;
/** Past this many characters a run is only read at its end (or its start, for the first answer). */
const MAX_RUN = 256;
/** Room after a run for a percent word. */
const AFTER_RUN = 12;
const CURRENCY = /[$€£¥₹]/;
const STARTS_ANSWER = /[\s=]/;

interface Found {
  end: number;
  answer: string;
}

/**
 * The runs of expression characters holding a digit, in order. The patterns backtrack, so they only ever run over
 * a window of at most MAX_RUN characters around one run, and only over the runs needed (the first or the last that
 * holds an answer): time stays linear in `text`, whatever it holds.
 */
function digitRuns(text: string, budget: StepBudget): { start: number; end: number }[] {
  const runs: { start: number; end: number }[] = [];
  RUN.lastIndex = 0;
  for (let run = RUN.exec(text); run; run = RUN.exec(text)) {
    budget.tick(run[0].length);
    if (/\d/.test(run[0])) runs.push({ start: run.index, end: RUN.lastIndex });
  }
  return runs;
}

/** The plain answers found around one run, `from` its start or its end when it is longer than MAX_RUN. */
function answersAround(text: string, run: { start: number; end: number }, from: 'start' | 'end', budget: StepBudget): Found[] {
  let start = from === 'end' ? Math.max(run.start, run.end - MAX_RUN) : run.start;
  const end = from === 'start' ? Math.min(run.end, run.start + MAX_RUN) : run.end;
  // The window's first character stands for what precedes it in `text`: a space where an answer may start there,
  // an `x` where it may not (`x5`, or the middle of a long run), so the patterns' `^` means what it says.
  let guard = 'x';
  if (start > run.start) {
    const space = text.slice(start, end).search(/\s/);
    if (space >= 0) [start, guard] = [start + space + 1, ' '];
  } else {
    const before = text[start - 1];
    const startsHere = (c: string | undefined) => c === undefined || STARTS_ANSWER.test(c);
    if (startsHere(before)) guard = ' ';
    else if (CURRENCY.test(before)) guard = `${startsHere(text[start - 2]) ? ' ' : 'x'}${before}`;
  }
  const offset = start - guard.length;
  const window = guard + text.slice(start, end + AFTER_RUN);
  const found: Found[] = [];
  PLAIN.lastIndex = 0;
  for (let match = PLAIN.exec(window); match; match = PLAIN.exec(window)) {
    budget.tick(match[0].length + 1);
    const raw = (match[1] ?? match[2]).replace(TRAILING, '');
    if (raw !== '') found.push({ end: offset + match.index + match[0].length, answer: match[1] !== undefined ? raw : plainNumber(raw) });
    if (match[0].length === 0) PLAIN.lastIndex++;
  }
  return found;
}

/**
 * `\frac{1}{2}` of plain numbers outside math delimiters. Math-Verify finds it with the same pattern that finds math
 * spans, so one inside a span belongs to the span: when the span cannot be read (`$$\frac{1}{2}.$$`), neither can it.
 */
function simpleFractions(text: string, budget: StepBudget): Found[] {
  const found: Found[] = [];
  if (!text.includes('\\frac')) return found;
  const spans = mathSpanRanges(text, budget);
  let span = 0;
  SIMPLE.lastIndex = 0;
  for (let match = SIMPLE.exec(text); match; match = SIMPLE.exec(text)) {
    budget.tick(match[0].length);
    while (span < spans.length && spans[span].end <= match.index) span++;
    if (span < spans.length && spans[span].start <= match.index) continue;
    found.push({ end: match.index + match[0].length, answer: match[0] });
  }
  return found;
}

/**
 * The math spans of `text` as Math-Verify's patterns find them, left to right: `$$…$$` and `\[…\]` over lines, `$…$`
 * (not after a digit or a backslash) and `\(…\)` within one line. Each closer's next position is remembered, so the
 * scan stays linear however many openers go unclosed.
 */
function mathSpanRanges(text: string, budget: StepBudget): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  const next = new Map<string, number>();
  /** The first `closer` at or after `from`, -1 if none; each closer's text is searched once per stretch. */
  const closing = (closer: string, from: number): number => {
    const known = next.get(closer);
    if (known !== undefined && (known < 0 || known >= from)) return known;
    const at = text.indexOf(closer, from);
    next.set(closer, at);
    return at;
  };
  const lineEnd = (from: number): number => {
    const at = closing('\n', from);
    return at < 0 ? text.length : at;
  };
  budget.tick(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '$' && c !== '\\') continue;
    const two = text.slice(i, i + 2);
    const escaped = text[i - 1] === '\\';
    let end = -1;
    if (two === '$$' && !escaped) end = closing('$$', i + 2) + 2;
    else if (two === '\\[') end = closing('\\]', i + 2) + 2;
    if (end < 2 && c === '$' && !escaped && !/\d/.test(text[i - 1] ?? '')) {
      const close = closing('$', i + 1);
      if (close > i + 1 && close < lineEnd(i)) end = close + 1;
    } else if (end < 2 && two === '\\(') {
      const close = closing('\\)', i + 2);
      if (close >= 0 && close < lineEnd(i)) end = close + 2;
    }
    if (end >= 2) {
      spans.push({ start: i, end });
      i = end - 1;
    }
  }
  return spans;
}

/** The first plain number or expression of `text` (what follows "the answer is"), read as Math-Verify does. */
export function firstPlainAnswer(text: string, budget: StepBudget): string | undefined {
  const fraction = simpleFractions(text, budget)[0];
  for (const run of digitRuns(text, budget)) {
    if (fraction && fraction.end <= run.start) return fraction.answer;
    const found = answersAround(text, run, 'start', budget)[0];
    if (found) return fraction && fraction.end < found.end ? fraction.answer : found.answer;
  }
  return fraction?.answer;
}

/** The plain number or expression of `text` that ends last (a response's final number), read as Math-Verify does. */
export function lastPlainAnswer(text: string, budget: StepBudget): string | undefined {
  const fractions = simpleFractions(text, budget);
  const fraction = fractions[fractions.length - 1];
  const runs = digitRuns(text, budget);
  for (let i = runs.length - 1; i >= 0; i--) {
    if (fraction && fraction.end >= runs[i].end + AFTER_RUN) return fraction.answer;
    const found = answersAround(text, runs[i], 'end', budget);
    const last = found.reduce<Found | undefined>((best, f) => (best === undefined || f.end >= best.end ? f : best), undefined);
    if (last) return fraction && fraction.end > last.end ? fraction.answer : last.answer;
  }
  return fraction?.answer;
}
