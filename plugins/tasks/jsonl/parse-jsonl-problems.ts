import { fail } from '../../../core/errors.ts';
import { parseJsonExactNumbers } from '../../../core/exact-json.ts';
import type { Problem } from '../../../core/tasks/task.ts';
import { rowProblem } from './row-problem.ts';

/**
 * Every non-blank line of a JSONL math set as a Problem. The first bad line fails the whole
 * file with DATA_INVALID naming it: a set that silently lost rows would report wrong scores.
 */
export function parseJsonlProblems(text: string, file: string, taskName: string): Problem[] {
  const problems: Problem[] = [];
  text.split(/\r?\n/).forEach((source, index) => {
    const line = index + 1;
    if (source.trim().length === 0) return;
    let row: unknown;
    try {
      row = parseJsonExactNumbers(source);
    } catch (error) {
      fail('DATA_INVALID', `${file}:${line}: not valid JSON (${(error as Error).message})`, { file, line });
    }
    problems.push(rowProblem(row, { file, line }, taskName));
  });
  if (problems.length === 0) fail('DATA_INVALID', `${file}: holds no problems`, { file });
  return problems;
}
