import type { StepBudget } from './budget.ts';
import { splitTopLevel, splitTopLevelAny } from './top-level.ts';

/** Environments read as a matrix of cells; `vmatrix` (a determinant) is not among them. */
const ENVIRONMENTS = 'pmatrix|bmatrix|Bmatrix|matrix|smallmatrix|array';
const MATRIX = new RegExp(String.raw`^\\begin\{(${ENVIRONMENTS})\}\s*(?:\{[^{}]*\})?([\s\S]*)\\end\{\1\}$`);
const IN_BRACKETS = /^[([]\s*([\s\S]*?)\s*[)\]]$/;
/** Where a matrix starts inside an expression, maybe after the bracket it sits in (`[\begin{array}{cc}…\end{array}]`). */
const MATRIX_START = new RegExp(String.raw`[([]?\s*\\begin\{(${ENVIRONMENTS})\}`, 'g');
/** The bracket a matrix may sit in, closed right after its `\end{…}`. */
const CLOSING_BRACKET = /^\s*[)\]]/;
/** Past this many cell products a matrix product is not worked out: no answer multiplies matrices that large. */
const MAX_PRODUCT_WORK = 10_000;
/** A worked-out cell longer than this is given up: a chain of products would double its LaTeX at every step. */
const MAX_CELL_CHARS = 10_000;
const SIGNS: ReadonlySet<string> = new Set(['+', '-']);
/** What stands in an expression for the i-th matrix while it is split into terms. */
const PLACEHOLDER = /\\matrixplaceholder\{(\d+)\}/g;
/** Multiplication signs between factors, which the juxtaposition of factors already means. */
const TIMES = /\\(?:cdot|times)(?![a-zA-Z])|\*/g;

/**
 * The cells of `\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}` (also `bmatrix`, `matrix`, and `array` with its
 * column spec, bare or in one pair of brackets) row by row; undefined when `text` is not one such environment.
 */
export function matrixRows(text: string): string[][] | undefined {
  const match = MATRIX.exec(text) ?? MATRIX.exec(IN_BRACKETS.exec(text)?.[1] ?? '');
  // `\begin{pmatrix}…\end{pmatrix} + \begin{pmatrix}…\end{pmatrix}` is two matrices, not one whose cells hold `\end`.
  if (!match || match[2].includes(`\\end{${match[1]}}`)) return undefined;
  const rows = splitTopLevel(match[2], '\\\\').filter((row) => row !== '');
  return rows.length === 0 ? undefined : rows.map((row) => splitTopLevel(row, '&'));
}

type Cells = string[][];

/**
 * Math-Verify's reading of matrices in an expression: sums, differences and products of matrices and scalars are
 * worked out before comparing (`2\begin{pmatrix}1\\2\end{pmatrix} + \begin{pmatrix}0\\1\end{pmatrix}` is the vector
 * of `(2)(1) + (0)` and `(2)(2) + (1)`, each cell the LaTeX of its sum). Undefined unless `text` holds a matrix and
 * something else besides, every term is a matrix of the same shape, and every product's shapes agree.
 */
export function matrixExpression(text: string, budget: StepBudget): Cells | undefined {
  if (!text.includes('\\begin')) return undefined;
  budget.tick(text.length);
  const matrices: Cells[] = [];
  let rest = '';
  let from = 0;
  MATRIX_START.lastIndex = 0;
  for (let start = MATRIX_START.exec(text); start; start = MATRIX_START.exec(text)) {
    // Each environment is closed by the first `\end` of its name after it: one forward search each, so linear.
    const closer = `\\end{${start[1]}}`;
    const close = text.indexOf(closer, MATRIX_START.lastIndex);
    if (close < 0) return undefined;
    const bracket = /^[([]/.test(start[0]) ? CLOSING_BRACKET.exec(text.slice(close + closer.length, close + closer.length + 16)) : null;
    const end = close + closer.length + (bracket?.[0].length ?? 0);
    const rows = matrixRows(text.slice(start.index, end).trim());
    if (!rows) return undefined;
    matrices.push(rows);
    rest += `${text.slice(from, start.index)}\\matrixplaceholder{${matrices.length - 1}}`;
    from = end;
    MATRIX_START.lastIndex = end;
  }
  rest += text.slice(from);
  if (matrices.length < 2 && rest.trim() === '\\matrixplaceholder{0}') return undefined;
  const { parts, separators } = splitTopLevelAny(rest, SIGNS);
  let total: Cells | undefined;
  for (let i = 0; i < parts.length; i++) {
    const negative = separators[i - 1] === '-';
    if (parts[i] === '' && i === 0) continue;
    const term = product(parts[i], matrices, budget);
    if (!term) return undefined;
    const signed = negative ? term.map((row) => row.map((cell) => `-(${cell})`)) : term;
    if (!total) total = signed;
    else if (sameShape(total, signed)) total = total.map((row, r) => row.map((cell, c) => `${cell} + ${signed[r][c]}`));
    else return undefined;
    if (tooLong(total, budget)) return undefined;
  }
  return total;
}

/** One term: scalars and matrices side by side, multiplied in order. */
function product(term: string, matrices: Cells[], budget: StepBudget): Cells | undefined {
  const factors: Cells[] = [];
  const scalar = term.replace(TIMES, ' ').replace(PLACEHOLDER, (_, i: string) => {
    factors.push(matrices[Number(i)]);
    return ' ';
  });
  if (factors.length === 0) return undefined;
  let out = factors[0];
  for (const next of factors.slice(1)) {
    const inner = next.length;
    if (out.some((row) => row.length !== inner) || next.some((row) => row.length !== next[0].length)) return undefined;
    if (out.length * next[0].length * inner > MAX_PRODUCT_WORK) return undefined;
    budget.tick(out.length * next[0].length * inner);
    out = out.map((row) => next[0].map((_, c) => row.map((cell, k) => `(${cell})(${next[k][c]})`).join(' + ')));
    if (tooLong(out, budget)) return undefined;
  }
  const k = scalar.trim();
  return k === '' ? out : out.map((row) => row.map((cell) => `(${k})(${cell})`));
}

/** Whether a cell has grown past MAX_CELL_CHARS; every character looked at is charged to `budget`. */
function tooLong(cells: Cells, budget: StepBudget): boolean {
  let longest = 0;
  for (const row of cells) for (const cell of row) longest = Math.max(longest, cell.length);
  budget.tick(cells.length * (cells[0]?.length ?? 0));
  return longest > MAX_CELL_CHARS;
}

const sameShape = (a: Cells, b: Cells): boolean => a.length === b.length && a.every((row, i) => row.length === b[i].length);
