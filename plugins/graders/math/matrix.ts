import { splitTopLevel } from './top-level.ts';

/** Environments read as a matrix of cells; `vmatrix` (a determinant) is not among them. */
const MATRIX = /^\\begin\{(pmatrix|bmatrix|Bmatrix|matrix|smallmatrix|array)\}\s*(?:\{[^{}]*\})?([\s\S]*)\\end\{\1\}$/;
const IN_BRACKETS = /^[([]\s*([\s\S]*?)\s*[)\]]$/;

/**
 * The cells of `\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}` (also `bmatrix`, `matrix`, and `array` with its
 * column spec, bare or in one pair of brackets) row by row; undefined when `text` is not one such environment.
 */
export function matrixRows(text: string): string[][] | undefined {
  const match = MATRIX.exec(text) ?? MATRIX.exec(IN_BRACKETS.exec(text)?.[1] ?? '');
  if (!match) return undefined;
  const rows = splitTopLevel(match[2], '\\\\').filter((row) => row !== '');
  return rows.length === 0 ? undefined : rows.map((row) => splitTopLevel(row, '&'));
}
