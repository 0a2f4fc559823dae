import { readFile } from 'node:fs/promises';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { z } from 'zod';
import { fail, LudusError } from '../../../core/errors.ts';
import { parseJsonExactNumbers } from '../../../core/exact-json.ts';

/**
 * Which of a data set's columns hold what a problem needs, when they are not named as ludus reads them by default
 * ({problem, answer}, {problem, solution}, GSM8K's {question, answer}): e.g. `{"problem": "Problem", "answer":
 * "Answer"}`. The named columns are renamed; the others stay in the problem's meta.
 */
export const ColumnsSchema = z.strictObject({
  problem: z.string().min(1).optional().describe("the column holding the question; read as the row's problem"),
  question: z.string().min(1).optional().describe('the question column of a GSM8K-shaped set (its answer ends in "#### answer")'),
  answer: z.string().min(1).optional().describe('the column holding the final answer'),
  solution: z.string().min(1).optional().describe('the column holding a worked solution ending in \\boxed{answer}'),
  id: z.string().min(1).optional().describe("the column holding the row's id"),
});

export type Columns = z.output<typeof ColumnsSchema>;

/** One row of a data set and where it is: a JSONL line, or a parquet row (1-based). */
export interface PlacedRow {
  readonly row: unknown;
  readonly line: number;
}

/** The rows of a JSONL or a parquet file (Hugging Face's layout), each renamed by `columns`. */
export async function readRows(path: string, columns: Columns = {}): Promise<PlacedRow[]> {
  return renameColumns(path.endsWith('.parquet') ? await parquetRows(path) : jsonlTextRows(await readText(path), path), columns, path);
}

async function readText(path: string): Promise<string> {
  return readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new LudusError('INPUT_INVALID', `${path}: cannot read the problem set (${error.code ?? error.message})`, { file: path });
  });
}

/** Every non-blank line of JSONL text, parsed with exact numbers; DATA_INVALID naming the first line that is not JSON. */
export function jsonlTextRows(text: string, path: string): PlacedRow[] {
  return text.split(/\r?\n/).flatMap((source, index) => {
    const line = index + 1;
    if (source.trim().length === 0) return [];
    try {
      return [{ row: parseJsonExactNumbers(source), line }];
    } catch (error) {
      return fail('DATA_INVALID', `${path}:${line}: not valid JSON (${(error as Error).message})`, { file: path, line });
    }
  });
}

/** Rows with `columns`' columns renamed to the fields ludus reads (a row without one is DATA_INVALID naming it). */
export function renameColumns(rows: PlacedRow[], columns: Columns, path: string): PlacedRow[] {
  return Object.keys(columns).length === 0 ? rows : rows.map(({ row, line }) => ({ row: renamed(row, columns, path, line), line }));
}

/** Parquet's 64-bit integers arrive as bigint; a row of a math set holds them as numbers or text. */
const plain = (value: unknown): unknown => (typeof value === 'bigint' ? (Number.isSafeInteger(Number(value)) ? Number(value) : String(value)) : value);

async function parquetRows(path: string): Promise<PlacedRow[]> {
  let objects: Record<string, unknown>[];
  try {
    objects = (await parquetReadObjects({ file: await asyncBufferFromFile(path) })) as Record<string, unknown>[];
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') throw new LudusError('INPUT_INVALID', `${path}: cannot read the problem set (${code})`, { file: path });
    return fail('DATA_INVALID', `${path}: not a readable parquet file (${(error as Error).message})`, { file: path });
  }
  return objects.map((object, index) => ({ row: Object.fromEntries(Object.entries(object).map(([key, value]) => [key, plain(value)])), line: index + 1 }));
}

function renamed(row: unknown, columns: Columns, path: string, line: number): unknown {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return row;
  const fields = { ...(row as Record<string, unknown>) };
  const out: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(columns) as [string, string][]) {
    if (!Object.hasOwn(fields, column)) fail('DATA_INVALID', `${path}:${line}: has no column "${column}" (columns.${field}); its columns: ${Object.keys(fields).join(', ')}`, { file: path, line, column });
    out[field] = fields[column];
    delete fields[column];
  }
  for (const field of Object.keys(columns)) delete fields[field];
  return { ...fields, ...out };
}
