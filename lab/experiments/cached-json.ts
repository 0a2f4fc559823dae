import { readFile } from 'node:fs/promises';
import { isMissingFileError, writeFileAtomically } from '../../native/io/files.ts';

interface Cached<T> {
  key: unknown;
  value: T;
}

/** The value cached at `path` for exactly this key (compared as JSON), or undefined when absent or made for another key. */
export async function readCached<T>(path: string, key: unknown): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isMissingFileError(error)) return undefined;
    throw error;
  }
  const cached = JSON.parse(text) as Cached<T>;
  return JSON.stringify(cached.key) === JSON.stringify(key) ? cached.value : undefined;
}

/** Caches `value` under `key`, atomically: a crash leaves the previous file or the new one, never half of one. */
export async function writeCached<T>(path: string, key: unknown, value: T): Promise<void> {
  await writeFileAtomically(path, `${JSON.stringify({ key, value } satisfies Cached<T>, null, 2)}\n`);
}
