import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { pathExists } from '../../native/io/files.ts';

export async function appendJsonl(path: string, records: readonly object[]): Promise<void> {
  if (records.length === 0) return;
  await appendFile(path, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
}

/** Every line of a JSONL file as parsed JSON (blank lines skipped). */
export async function readJsonl<T>(path: string): Promise<T[]> {
  return (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

/** Drops the lines past `step` (a resumed run restarts there), so the file reads as one run. */
export async function trimJsonlAfter(path: string, step: number): Promise<void> {
  if (!(await pathExists(path))) return;
  const lines = (await readFile(path, 'utf8')).split('\n').filter((line) => line.trim() !== '');
  const kept = lines.filter((line) => (JSON.parse(line) as { step: number }).step <= step);
  await writeFile(path, kept.map((line) => `${line}\n`).join(''));
}
