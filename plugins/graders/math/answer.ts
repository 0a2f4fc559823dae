import type { StepBudget } from './budget.ts';
import type { Expr } from './expression.ts';
import { inequality, relationParts, type Relation } from './inequality.ts';
import { matrixExpression, matrixRows } from './matrix.ts';
import type { NormalizedAnswer } from './normalize.ts';
import { parseExpression } from './parse-expression.ts';
import { rational } from './rational.ts';
import { lenient, type GradingRules } from './rules.ts';
import { enclosingBrackets, splitTopLevel } from './top-level.ts';
import { Unparseable } from './unparseable.ts';

/** The shape of a final answer, which decides how two answers are compared. */
export type Answer =
  | { kind: 'expression'; expr: Expr }
  /** `x^2 + y^2 = 1`, `AB = 4`: both sides parsed; `last` is the right-hand side as an answer of its own. */
  | { kind: 'equation'; left: Expr; right: Expr; last: Answer }
  /** `a + 2z = 2z + a = 101` and other relations whose sides are not all expressions: kept as text, and the last side. */
  | { kind: 'chain'; text: string; last: Answer }
  /** `x = 3`, `f(x) = x^2`, `x \in [0, 1)`: a value given a name; it equals the bare value too. */
  | { kind: 'named'; name: string; value: Answer }
  /**
   * `x > 3`, `-1 \le x < 2`: the interval of `name` the inequality leaves (none when no side is a lone variable,
   * `2x + 1 > 5`); under Math-Verify's rules also each relation of the chain, in order, as `diff < 0` or `diff ≤ 0`.
   */
  | { kind: 'inequality'; name: string; interval?: Answer; parts?: Relation[] }
  /** Points, tuples, vectors and intervals: brackets and order matter. */
  | { kind: 'ordered'; open: '(' | '['; close: ')' | ']'; items: Answer[] }
  /** `\{…\}` or `{…}` with commas: order and repeats do not matter. */
  | { kind: 'set'; items: Answer[] }
  /** Bare `a, b` or `a; b` ("all solutions, separated by commas"): order does not matter, repeats do. */
  | { kind: 'list'; items: Answer[] }
  | { kind: 'union'; items: Answer[] }
  /** `pmatrix`, `bmatrix`, `array`...: rows of cells, shape and order matter. */
  | { kind: 'matrix'; rows: Answer[][] }
  | { kind: 'words'; text: string }
  | { kind: 'unparsed'; text: string };

const EMPTY_SET = /^\\(?:emptyset|varnothing)$/;
const THOUSANDS = /^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
const PLUS_MINUS = /\\(?:pm|mp)(?![a-zA-Z])/;
/** `x`, `x_1`, `\theta`, `f(x)`, `y'`: a left-hand side that only names the answer. */
const ANSWER_NAME = /^(?:[a-zA-Z]|\\[a-zA-Z]+)(?:_(?:\{[^{}]*\}|[a-zA-Z0-9]))?'*(?:\([^()]*\))?$/;
const MIXED_NUMBER = /^([-+]?)(\d+)\s*(?:\\frac(?:\{(\d+)\}|(\d))(?:\{(\d+)\}|(\d))|\s(\d+)\/(\d+))$/;

export function parseAnswer(normalized: NormalizedAnswer, budget: StepBudget, rules?: GradingRules): Answer {
  if (normalized.worded && !(lenient(rules) && wordedLabel(normalized.latex))) return { kind: 'words', text: wordsOf(normalized.latex) };
  return new Structure(budget, lenient(rules)).of(normalized.latex, 1);
}

/**
 * `\text{Area} = 24`: words that only label a value (Math-Verify reads `Area` as a symbol), so the answer is the
 * relation, not words: the value after the last `=` holds no word.
 */
function wordedLabel(latex: string): boolean {
  const sides = splitTopLevel(latex, '=');
  return sides.length > 1 && !/[a-zA-Z]{2,}/.test(sides[sides.length - 1].replace(/\\[a-zA-Z]+/g, ' '));
}

/** Worded answers compare case-blind with spacing and LaTeX escapes ignored. */
export function wordsOf(latex: string): string {
  return latex.toLowerCase().replace(/\\/g, '').replace(/\s+/g, ' ').trim();
}

/**
 * Whitespace dropped, except between two digits: `2\n9` stays two numbers, never the 29 a split line would fake.
 */
export const compact = (text: string): string => text.replace(/\s+/g, (space, at: number) => (/\d/.test(text[at - 1] ?? '') && /\d/.test(text[at + space.length] ?? '') ? ' ' : ''));

const APPROX = '\\approx';

/** Reads an answer's shape; `lenient` adds Math-Verify's rules (`rules.ts`). */
class Structure {
  constructor(
    private readonly budget: StepBudget,
    readonly lenient: boolean,
  ) {}

  of(text: string, depth: number): Answer {
    return structure(text, this.budget, depth, this);
  }

  /** `x = \frac{1}{3} \approx 0.33` is `x = \frac{1}{3}`; `p \approx 0.33` (a name first) is 0.33. */
  approximation(text: string): string {
    if (!this.lenient) return text;
    const parts = splitTopLevel(text, APPROX);
    if (parts.length < 2 || parts.some((part) => part === '')) return text;
    return ANSWER_NAME.test(parts[0]) ? parts[parts.length - 1] : parts[0];
  }

  /** Under Math-Verify's rules sums and products of matrices are worked out (`matrix.ts`). */
  matrixExpression(text: string): string[][] | undefined {
    return this.lenient ? matrixExpression(text, this.budget) : undefined;
  }

  /** Under Math-Verify's rules, each relation of an inequality (`inequality.ts`). */
  relations(text: string): Relation[] | undefined {
    return this.lenient ? relationParts(text, this.budget) : undefined;
  }

  /**
   * Whether the left side of `side = value` only names the value. ludus's rules: a name such as `x`, `f(x)`, `\theta`.
   * Math-Verify's: any side built of letters alone (sympy's `is_expr_of_only_symbols`): `(a, b)`, `P:Q`, `|PQ|`,
   * `\frac{AM}{MB}`, `x + y`, `\angle ABC`, but not `f(3)`, `2a`, `a - b` or `x^2`, which hold a number.
   */
  names(side: string): boolean {
    return this.lenient ? onlySymbols(side) : ANSWER_NAME.test(side);
  }
}

/** Functions and decorations of a name (sympy keeps `sin(x)` a function of symbols): they vanish before the letters are looked at. */
const NAMING_COMMANDS = /\\(?:sin|cos|tan|sec|csc|cot|sinh|cosh|tanh|arcsin|arccos|arctan|ln|log|exp|angle|measuredangle|triangle|overline|overrightarrow|vec|hat|widehat|bar|mathrm|mathit|operatorname|left|right|cdot|frac|dfrac|tfrac)(?![a-zA-Z])/g;
/** A Greek letter is one symbol. */
const GREEK_LETTER = /\\(?:alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|vartheta|iota|kappa|lambda|mu|nu|xi|rho|sigma|tau|upsilon|phi|varphi|chi|psi|omega|Gamma|Delta|Theta|Lambda|Xi|Sigma|Phi|Psi|Omega)(?![a-zA-Z])/g;
/** Subscripts belong to a name: `x_1`, `S_{10}`, `r_{\max}`. */
const SUBSCRIPT = /_(?:\{[^{}]*\}|\\?[a-zA-Z0-9])/g;
/** What remains of a side of letters alone: letters, `+`, products, quotients, ratios, tuples, `|…|`, primes. */
const LETTERS_ALONE = /^[a-zA-Z\s+*/:,()|{}'.]*[a-zA-Z][a-zA-Z\s+*/:,()|{}'.]*$/;

/**
 * Math-Verify's test of a left side that only names (sympy's `is_expr_of_only_symbols`): every leaf a symbol, so no
 * digit (outside a subscript), no minus (`a - b` is `a + (-1)·b`), no power, root or constant.
 */
function onlySymbols(side: string): boolean {
  if (side === 'e') return false;
  return LETTERS_ALONE.test(side.replace(SUBSCRIPT, '').replace(GREEK_LETTER, 'x').replace(NAMING_COMMANDS, ' '));
}

function structure(raw: string, budget: StepBudget, depth: number, reader: Structure): Answer {
  budget.enter(depth);
  const inner = (part: string): Answer => reader.of(part, depth + 1);
  const text = reader.approximation(raw);
  if (EMPTY_SET.test(text)) return { kind: 'set', items: [] };
  const rows = matrixRows(text) ?? reader.matrixExpression(text);
  if (rows) return { kind: 'matrix', rows: rows.map((row) => row.map(inner)) };
  const union = splitTopLevel(text, '\\cup');
  if (union.length > 1) {
    const parts = union.map(inner);
    const finite = parts.every((part) => part.kind === 'set');
    return finite ? { kind: 'set', items: parts.flatMap((part) => (part.kind === 'set' ? part.items : [])) } : { kind: 'union', items: parts };
  }
  const alternatives = splitTopLevel(text, ';').filter((p) => p !== '');
  if (alternatives.length > 1) return { kind: 'list', items: alternatives.map(inner) };
  if (THOUSANDS.test(text)) return leaf(text.replace(/,/g, ''), budget);
  const enclosed = enclosingBrackets(text);
  if (enclosed?.open === '\\{' || enclosed?.open === '{') {
    const items = splitTopLevel(enclosed.inner, ',').filter((p) => p !== '');
    if (enclosed.open === '\\{' || items.length > 1) return { kind: 'set', items: items.map(inner) };
  } else if (enclosed) {
    const items = splitTopLevel(enclosed.inner, ',');
    if (items.length > 1) return { kind: 'ordered', open: enclosed.open, close: enclosed.close as ')' | ']', items: items.map(inner) };
  }
  const items = splitTopLevel(text, ',');
  if (items.length > 1) {
    const answers = items.map(inner);
    return { kind: 'list', items: answers };
  }
  const sides = splitTopLevel(text, '=');
  if (sides.length > 1) return relation(text, sides, budget, inner, reader);
  const bounds = inequality(text);
  const parts = reader.relations(text);
  const withParts = parts ? { parts } : {};
  if (bounds) return { kind: 'inequality', name: compact(bounds.name), interval: { kind: 'ordered', open: bounds.open, close: bounds.close, items: [bounds.low, bounds.high].map(inner) }, ...withParts };
  if (parts) return { kind: 'inequality', name: '', parts };
  const ratio = splitTopLevel(text, ':');
  if (ratio.length === 2 && ratio.every((side) => side !== '')) return leaf(`\\frac{${ratio[0]}}{${ratio[1]}}`, budget);
  return leaf(text, budget);
}

/**
 * `x = 3` names a value; other relations keep both sides, and their last side for a gold that is a bare value. Under
 * Math-Verify's rules a relation whose first side only names (`x + y = 9`, `(a, b) = (4, 1)`) names its last side.
 */
function relation(text: string, sides: string[], budget: StepBudget, inner: (part: string) => Answer, reader: Structure): Answer {
  const value = sides[sides.length - 1];
  // Math-Verify keeps a chain's first side and last value (`a = b = 5` is `a = 5`); ludus's rules need every side a name.
  const name = reader.lenient ? sides[0] : sides[sides.length - 2];
  if (reader.lenient ? reader.names(name) : sides.slice(0, -1).every((side) => reader.names(side))) return { kind: 'named', name: compact(name), value: inner(value) };
  const last = inner(value);
  if (sides.length === 2) {
    try {
      return { kind: 'equation', left: parseExpression(sides[0], budget), right: parseExpression(sides[1], budget), last };
    } catch (error) {
      if (!(error instanceof Unparseable)) throw error;
    }
  }
  return { kind: 'chain', text: compact(text), last };
}

/** `a \pm b` is the list of both; `2\frac{1}{2}` (a whole number before a proper fraction) is the mixed number 5/2. */
function leaf(text: string, budget: StepBudget): Answer {
  if (text.match(new RegExp(PLUS_MINUS, 'g'))?.length === 1) {
    return { kind: 'list', items: ['+', '-'].map((sign) => leaf(text.replace(PLUS_MINUS, sign), budget)) };
  }
  const mixed = mixedNumber(text);
  if (mixed) return { kind: 'expression', expr: mixed };
  try {
    return { kind: 'expression', expr: parseExpression(text, budget) };
  } catch (error) {
    if (error instanceof Unparseable) return unparsed(text);
    throw error;
  }
}

function mixedNumber(text: string): Expr | undefined {
  const match = MIXED_NUMBER.exec(text);
  if (!match) return undefined;
  const [, sign, whole, ...parts] = match;
  const [numerator, denominator] = parts.filter((p) => p !== undefined).map(BigInt);
  if (denominator === 0n || numerator >= denominator) return undefined;
  const n = BigInt(whole) * denominator + numerator;
  return { kind: 'number', value: rational(sign === '-' ? -n : n, denominator)!, decimal: false };
}

const unparsed = (text: string): Answer => ({ kind: 'unparsed', text: compact(text) });
