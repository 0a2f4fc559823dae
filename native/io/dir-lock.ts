import { mkdir, readdir, readFile, rmdir, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fail } from '../../core/errors.ts';

/** The file in a run or experiment directory that says which process is writing it. */
export const LOCK_FILE = '.ludus-lock';

interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly started: string;
}

export interface DirLock {
  /** Removes the lock file where it is still this process's. */
  release(): Promise<void>;
}

/**
 * Makes this process the one writer of `dir` (created if missing, and removed on release if left empty) until `release`: two processes training into one
 * run directory, or running one experiment, would interleave their metrics and overwrite each other's checkpoints.
 * A lock left by a process that no longer runs on this machine (killed, out of memory) is taken over; a live
 * holder's, or one from another machine whose process cannot be checked, is refused with RUN_LOCKED.
 */
export async function lockDirectory(dir: string, what: string): Promise<DirLock> {
  // The first directory mkdir made (undefined: `dir` was there): removed again on release if nothing else was written.
  const created = await mkdir(dir, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    // A file where the directory (or one above it) should be: the user's mistake, said before anything is written.
    if (error.code === 'EEXIST' || error.code === 'ENOTDIR') fail('INPUT_INVALID', `${dir}: is a file (or lies under one), not a directory for this ${what}`, { dir });
    throw error;
  });
  const path = join(dir, LOCK_FILE);
  const mine: Holder = { pid: process.pid, host: hostname(), started: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(path, `${JSON.stringify(mine)}\n`, { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readHolder(path);
    if (holder && attempt === 0 && holder.host === mine.host && !alive(holder.pid)) {
      await unlink(path).catch(() => undefined);
      continue;
    }
    const who = holder ? `process ${holder.pid} on ${holder.host}, since ${holder.started}` : 'another process';
    const remedy = holder && holder.host !== mine.host ? `; if no ludus process on ${holder.host} uses it, delete ${path}` : '; wait for it to end, or stop it';
    fail('RUN_LOCKED', `${dir}: this ${what} is being written by ${who}${remedy}`, { dir, holder: holder ?? null });
  }
  return {
    release: async () => {
      const holder = await readHolder(path);
      if (holder?.pid === mine.pid && holder.host === mine.host && holder.started === mine.started) await unlink(path).catch(() => undefined);
      // A run refused before it wrote anything leaves no directory behind, as it did before it took a lock.
      if (created !== undefined && (await readdir(dir).catch(() => [null])).length === 0) await rmdir(dir).catch(() => undefined);
    },
  };
}

/** Runs `body` holding the lock of `dir`, released however it ends. */
export async function withDirectoryLock<T>(dir: string, what: string, body: () => Promise<T>): Promise<T> {
  const lock = await lockDirectory(dir, what);
  try {
    return await body();
  } finally {
    await lock.release();
  }
}

/** Whether `dir` holds a lock left by a process that no longer runs on this machine (killed before it let go). */
export async function lockAbandoned(dir: string): Promise<boolean> {
  const holder = await readHolder(join(dir, LOCK_FILE));
  return holder !== undefined && holder.host === hostname() && !alive(holder.pid);
}

async function readHolder(path: string): Promise<Holder | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<Holder>;
    return typeof parsed.pid === 'number' && typeof parsed.host === 'string' ? { pid: parsed.pid, host: parsed.host, started: String(parsed.started) } : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
