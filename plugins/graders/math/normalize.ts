import { closingBrace } from './braces.ts';
import { StepBudget } from './budget.ts';
import { lenient, type GradingRules } from './rules.ts';
import { isUnitPhrase } from './units.ts';

/** An answer's LaTeX with presentation removed; `percent` and `worded` say what was seen on the way. */
export interface NormalizedAnswer {
  latex: string;
  /** A `%` was dropped: `10\%` may mean 10 or 0.1. */
  percent: boolean;
  /**
   * The percent was plain text (`40%`, `40 percent`), not LaTeX's `\%`: Math-Verify's plain numbers keep the digits
   * as their text, so such a prediction also matches a gold written without the percent.
   */
  plainPercent: boolean;
  /** The answer is words (`\text{Monday}`, `even`), compared as lower-case text. */
  worded: boolean;
}

const UNICODE: [RegExp, string][] = [
  [/[\u2212\u2013\u2014]/g, '-'],
  [/\u00d7/g, '\\times '],
  [/[\u00b7\u22c5]/g, '\\cdot '],
  [/\u00f7/g, '\\div '],
  [/\u03c0/g, '\\pi '],
  [/\u221e/g, '\\infty '],
  [/\u221a/g, '\\sqrt'],
  [/\u00b0/g, '^\\circ'],
  [/\u2264/g, '\\le '],
  [/\u2265/g, '\\ge '],
  [/\u222a/g, '\\cup '],
  [/(\d)[\u2009\u202f\u2007](?=\d{3}(?!\d))/g, '$1'],
  [/[\u00a0\u2009\u202f\u2007]/g, ' '],
  [/\u00b2/g, '^2'],
  [/\u00b3/g, '^3'],
];

const PRESENTATION: [RegExp, string][] = [
  [/\\\$/g, ''],
  [/\$/g, ''],
  [/\\(?:displaystyle|textstyle|scriptstyle|mathstrut)(?![a-zA-Z])/g, ''],
  [/\\[dtc]frac(?![a-zA-Z])/g, '\\frac'],
  [/\\[dt]binom(?![a-zA-Z])/g, '\\binom'],
  [/\\(?:left|right|bigl|bigr|Bigl|Bigr|biggl|biggr|Biggl|Biggr|big|Big|bigg|Bigg)(?![a-zA-Z])\s*\.?/g, ''],
  [/\{,\}/g, ','],
  [/(\d)\\[,;: ](?=\d{3}(?!\d))/g, '$1'],
  [/(\d),\s*\\!\s*(?=\d{3}(?!\d))/g, '$1,'],
  [/\\!/g, ''],
  [/(?<!\\)\\[,;: ]/g, ' '],
  [/\\(?:q?quad|enspace|thinspace)(?![a-zA-Z])/g, ' '],
  [/~/g, ' '],
  [/\\(?:lvert|rvert|vert|mid)(?![a-zA-Z])/g, '|'],
  [/\\lbrace(?![a-zA-Z])/g, '\\{'],
  [/\\rbrace(?![a-zA-Z])/g, '\\}'],
];

const DEGREES = /\^\s*\{\s*\\circ\s*\}|\^\s*\\circ(?![a-zA-Z])|\\circ(?![a-zA-Z])|\\degree(?![a-zA-Z])/g;
const PERCENT = /\\?%/g;
/** `40 percent`, `40 pct`: a percent in words after a number (Math-Verify's plain numbers). */
const PERCENT_WORD = /(?<=\d)\s*(?:percent(?:age)?|pct)\b/gi;
const BARE_FUNCTION_NAMES = /(?<![\\a-zA-Z])(sqrt|pi|infty|sin|cos|tan|ln|log|exp)(?![a-zA-Z])/g;
const TEXT_COMMAND = /\\(?:text|textbf|textit|textrm|textsf|texttt|textnormal|mathrm|mathbf|mathit|mathsf|mathtt|mbox|hbox)\s*\{/g;
const SQUARED_OR_CUBED = /^\s*\^\s*(?:\{\s*[23]\s*\}|[23])/;
const PLAIN_NUMBER = /^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?$/;
const ENVIRONMENT_NAME = /\\(?:begin|end)\{[a-zA-Z*]*\}/g;
/** `1 000`, `7 425 000.5`: digits grouped by spaces, the whole answer. */
const SPACE_GROUPED = /^[-+]?\d{1,3}(?: \d{3})+(?:\.\d+)?$/;

/**
 * Math-Verify's spellings of one relation: `!=`, `\ne` and `\not=` are `\neq`; `>=` and `<=` are `\ge` and `\le`;
 * and `\mathbb{R}` is `(-\infty, \infty)`.
 */
const RELATION_SPELLINGS: [RegExp, string][] = [
  // The real line is the interval of all reals.
  [/\\mathbb\s*\{?R\}?(?![a-zA-Z])/g, '(-\\infty, \\infty)'],
  [/!=|\\not\s*=|\\ne(?![a-zA-Z])/g, '\\neq '],
  [/>=/g, '\\ge '],
  [/<=/g, '\\le '],
];

const rewrite = (s: string, rules: [RegExp, string][]): string => rules.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), s);

/**
 * Text commands nested deeper than the budget's depth, and every character their braces make it scan, are charged to
 * `budget`. Under Math-Verify's rules (`rules`) relation signs have one spelling, and a `\text{}` holding a number
 * and words (`\text{36 apples}`) makes the answer words, as Math-Verify reads text as a name.
 */
export function normalizeAnswer(raw: string, budget: StepBudget = new StepBudget(), rules?: GradingRules): NormalizedAnswer {
  let s = rewrite(stripMathDelimiters(rewrite(raw.trim(), UNICODE)), PRESENTATION).replace(DEGREES, '');
  if (lenient(rules)) s = rewrite(s, RELATION_SPELLINGS).replace(PERCENT_WORD, '%');
  const percent = s.includes('%');
  const plainPercent = /(?<!\\)%/.test(s);
  s = s.replace(PERCENT, '');
  const text = unwrapTextCommands(s, budget, 1);
  const numberInText = lenient(rules) && text.words.length > 0 && text.numbered;
  s = text.latex.replace(BARE_FUNCTION_NAMES, '\\$1');
  s = s.replace(/\s+(?:and|or)\s+/g, ', ');
  s = s.replace(/\\in(?![a-zA-Z])/g, '=');
  s = stripTrailingUnits(s.replace(/\s+/g, ' ').trim());
  s = s.replace(/[\s.,;:]+$/, '').replace(/^[\s.,;:]+(?!\d)/, '').trim();
  if (SPACE_GROUPED.test(s) && !lenient(rules)) s = s.replace(/ /g, '');
  const letters = s.replace(ENVIRONMENT_NAME, ' ').replace(/\\[a-zA-Z]+/g, ' ');
  const worded = numberInText || text.words.some((w) => letters.includes(w)) || /[a-zA-Z]{4,}/.test(letters);
  return { latex: s, percent, plainPercent, worded };
}

function stripMathDelimiters(s: string): string {
  let out = s;
  for (;;) {
    const inner = /^\\\(([\s\S]*)\\\)$/.exec(out) ?? /^\\\[([\s\S]*)\\\]$/.exec(out);
    if (!inner) return out;
    out = inner[1].trim();
  }
}

/**
 * `\text{…}`-like commands give way to their content: unit phrases vanish (with a following ^2/^3),
 * "and"/"or" become commas, other words stay and are remembered so the answer can be judged as words.
 */
function unwrapTextCommands(s: string, budget: StepBudget, depth: number): { latex: string; words: string[]; numbered: boolean } {
  budget.enter(depth);
  const words: string[] = [];
  let numbered = false;
  let out = '';
  let from = 0;
  TEXT_COMMAND.lastIndex = 0;
  for (let match = TEXT_COMMAND.exec(s); match; match = TEXT_COMMAND.exec(s)) {
    const open = match.index + match[0].length - 1;
    const close = closingBrace(s, open, budget);
    if (close < 0) break;
    out += s.slice(from, match.index);
    const content = unwrapTextCommands(s.slice(open + 1, close), budget, depth + 1);
    const phrase = content.latex.trim();
    from = close + 1;
    if (phrase === '' || isUnitPhrase(phrase, { inTextCommand: true })) {
      const power = SQUARED_OR_CUBED.exec(s.slice(from, from + 16));
      if (power && phrase !== '') from += power[0].length;
      out += ' ';
    } else if (/^(?:and|or|,)$/i.test(phrase)) {
      out += ', ';
    } else {
      words.push(...content.words, ...(phrase.match(/[a-zA-Z]{2,}/g) ?? []));
      numbered ||= content.numbered || (/\d/.test(phrase) && /[a-zA-Z]{2,}/.test(phrase));
      out += ` ${phrase} `;
    }
    TEXT_COMMAND.lastIndex = from;
  }
  return { latex: out + s.slice(from), words, numbered };
}

const LONGEST_UNIT_PHRASE = 4;

/**
 * `5 cm`, `3 square feet`, `18 apples`: trailing unit words go after any answer; other trailing words of three
 * letters or more go only after a plain number (`2 ab` stays a product). Linear in the length of `s`.
 */
function stripTrailingUnits(s: string): string {
  const body = s.replace(/\s*\^\s*(?:\{\s*[23]\s*\}|[23])$/, '');
  let start = body.length;
  while (start > 0 && /[a-zA-Z\s./]/.test(body[start - 1])) start--;
  const head = body.slice(0, start).trim();
  const region = body.slice(start);
  if (head === '' || !/^\s/.test(region)) return s;
  const words = region.trim().split(/\s+/);
  if (PLAIN_NUMBER.test(head) && /\d/.test(head) && words.every((w) => /^[a-zA-Z]{3,}/.test(w))) return head;
  for (let k = Math.min(words.length, LONGEST_UNIT_PHRASE); k >= 1; k--) {
    if (!isUnitPhrase(words.slice(-k).join(' '), { inTextCommand: false })) continue;
    return [head, ...words.slice(0, words.length - k)].join(' ');
  }
  return s;
}
