import { readFile } from 'node:fs/promises';
import { fail } from '../../core/errors.ts';
import { appendDurably, isMissingFileError, writeFileAtomically } from '../../native/io/files.ts';

/** Where a dropped torn line is reported; the default writes one line to stderr. */
export type Warn = (message: string) => void;

export const warnOnStderr: Warn = (message) => void process.stderr.write(`ludus: warning: ${message}\n`);

/**
 * Appends records, one JSON line each, and fsyncs: a line appended before a checkpoint is saved survives a crash
 * after it, so the logs always reach the step the checkpoint holds.
 */
export async function appendJsonl(path: string, records: readonly object[]): Promise<void> {
  if (records.length === 0) return;
  await appendDurably(path, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
}

/**
 * Every line of a JSONL file as parsed JSON (blank lines skipped). A last line without its newline that is not JSON
 * was cut short by a crash mid-append: it is dropped and reported through `warn`. Any other line that is not JSON
 * is LOG_LINE_INVALID naming the file and the line.
 */
export async function readJsonl<T>(path: string, warn: Warn = warnOnStderr): Promise<T[]> {
  return (await readJsonlLines(path, warn)).lines.map((line) => line.record as T);
}

interface JsonlLine {
  readonly text: string;
  readonly record: unknown;
  readonly number: number;
}

/** The parsed lines, and whether the file ends cleanly (nothing dropped, a newline after the last line). */
async function readJsonlLines(path: string, warn: Warn): Promise<{ lines: JsonlLine[]; clean: boolean }> {
  const text = await readFile(path, 'utf8');
  const lines = text.split('\n');
  const parsed: JsonlLine[] = [];
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    try {
      parsed.push({ text: line, record: JSON.parse(line), number: i + 1 });
    } catch (error) {
      const isTornTail = i === lines.length - 1;
      if (!isTornTail) fail('LOG_LINE_INVALID', `${path}:${i + 1}: not valid JSON (${(error as Error).message})`, { file: path, line: i + 1 });
      warn(`${path}:${i + 1}: dropped a last line cut short (${Buffer.byteLength(line)} bytes without a newline; a crash while appending)`);
    }
  }
  return { lines: parsed, clean: text === '' || text.endsWith('\n') };
}

/**
 * Drops the lines past `step` (a resumed run restarts there), and a torn last line, so the file reads as one run.
 * The file is replaced whole (native/io/files.ts writeFileAtomically): a crash while trimming keeps the old one.
 */
export async function trimJsonlAfter(path: string, step: number, warn: Warn = warnOnStderr): Promise<void> {
  let read: { lines: JsonlLine[]; clean: boolean };
  try {
    read = await readJsonlLines(path, warn);
  } catch (error) {
    if (isMissingFileError(error)) return;
    throw error;
  }
  const kept = read.lines.filter((line) => stepOf(line, path) <= step);
  if (read.clean && kept.length === read.lines.length) return;
  await writeFileAtomically(path, kept.map((line) => `${line.text}\n`).join(''));
}

function stepOf(line: JsonlLine, path: string): number {
  const step = (line.record as { step?: unknown } | null)?.step;
  if (typeof step !== 'number') fail('LOG_LINE_INVALID', `${path}:${line.number}: no numeric "step"`, { file: path, line: line.number });
  return step as number;
}
