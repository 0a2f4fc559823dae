import { fail } from '../../../core/errors.ts';
import type { Problem } from '../../../core/tasks/task.ts';
import { jsonlTextRows, readRows, renameColumns, type Columns, type PlacedRow } from './read-rows.ts';
import { rowProblem } from './row-problem.ts';

/**
 * Every non-blank line of a JSONL math set as a Problem, its columns renamed by `columns`. The first bad line fails
 * the whole file with DATA_INVALID naming it: a set that silently lost rows would report wrong scores.
 */
export function parseJsonlProblems(text: string, file: string, taskName: string, columns: Columns = {}): Problem[] {
  return problemsOf(renameColumns(jsonlTextRows(text, file), columns, file), file, taskName);
}

/** A math set's file, JSONL or parquet (as Hugging Face ships data sets), as Problems (as {@link parseJsonlProblems}). */
export async function readProblemFile(file: string, taskName: string, columns: Columns = {}): Promise<Problem[]> {
  return problemsOf(await readRows(file, columns), file, taskName);
}

function problemsOf(rows: readonly PlacedRow[], file: string, taskName: string): Problem[] {
  const problems = rows.map(({ row, line }) => rowProblem(row, { file, line }, taskName));
  if (problems.length === 0) fail('DATA_INVALID', `${file}: holds no problems`, { file });
  return problems;
}
