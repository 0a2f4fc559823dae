import { mkdir, mkdtemp, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Largest slice handed to one read or write call (the OS caps a single call near 2 GiB). */
const IO_CHUNK_BYTES = 1 << 30;

export const isMissingFileError = (error: unknown): boolean => (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';

/** One step of a durable write, as the fault-injection tests see it: a crash may fall between any two. */
export interface FileOperation {
  readonly kind: 'mkdir' | 'mkdtemp' | 'open' | 'write' | 'sync' | 'close' | 'rename' | 'remove';
  readonly path: string;
}

let beforeFileOperation: ((operation: FileOperation) => void) | undefined;

/**
 * Installs a hook called before every file operation of the writers in this module (undefined removes it). Tests use
 * it to inject a crash between any two operations; a hook that throws stands for the process dying there.
 */
export function setFileOperationHook(hook: ((operation: FileOperation) => void) | undefined): void {
  beforeFileOperation = hook;
}

const step = (kind: FileOperation['kind'], path: string): void => beforeFileOperation?.({ kind, path });

export async function pathExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (isMissingFileError(error)) return false;
    throw error;
  }
}

/** Fills `target` from `position`; returns how many bytes the file actually had (less than asked when it ends early). */
export async function readInto(file: FileHandle, target: Uint8Array, position: number): Promise<number> {
  let done = 0;
  while (done < target.length) {
    const { bytesRead } = await file.read(target, done, Math.min(target.length - done, IO_CHUNK_BYTES), position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}

/** Writes bytes to the end of a file being written by {@link writeFileDurably} or {@link appendDurably}. */
export type WriteBytes = (bytes: Uint8Array) => Promise<void>;

async function writeThroughHandle(path: string, flags: 'w' | 'a', fill: Uint8Array | string | ((write: WriteBytes) => Promise<void>)): Promise<void> {
  step('open', path);
  const file = await open(path, flags);
  try {
    const write: WriteBytes = async (bytes) => {
      let done = 0;
      while (done < bytes.length) {
        step('write', path);
        const { bytesWritten } = await file.write(bytes, done, Math.min(bytes.length - done, IO_CHUNK_BYTES));
        done += bytesWritten;
      }
    };
    if (typeof fill === 'function') await fill(write);
    else await write(typeof fill === 'string' ? Buffer.from(fill, 'utf8') : fill);
    step('sync', path);
    await file.sync();
  } finally {
    try {
      step('close', path);
    } finally {
      await file.close();
    }
  }
}

/** Creates (or truncates) `path`, lets `fill` write into it, then fsyncs before closing. */
export async function writeFileDurably(path: string, fill: Uint8Array | string | ((write: WriteBytes) => Promise<void>)): Promise<void> {
  await writeThroughHandle(path, 'w', fill);
}

/** Appends to `path` (created when missing) and fsyncs before returning, so what was appended survives a crash. */
export async function appendDurably(path: string, contents: Uint8Array | string): Promise<void> {
  await writeThroughHandle(path, 'a', contents);
}

async function renameStep(from: string, to: string): Promise<void> {
  step('rename', to);
  await rename(from, to);
}

async function removeStep(path: string): Promise<void> {
  step('remove', path);
  await rm(path, { recursive: true, force: true });
}

/**
 * Writes a whole file or nothing: the bytes go to a temp sibling, are fsynced, and the temp is renamed over `path`
 * (atomic on POSIX filesystems), so a reader or a crash never sees a half-written file.
 */
export async function writeFileAtomically(path: string, contents: Uint8Array | string | ((write: WriteBytes) => Promise<void>)): Promise<void> {
  const dir = dirname(path);
  step('mkdir', dir);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${basename(path)}.writing-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    await writeFileDurably(temp, contents);
    await renameStep(temp, path);
  } catch (error) {
    await removeStep(temp);
    throw error;
  }
  await syncDirectory(dir);
}

/** Makes a directory's entries (creations, renames) durable. Platforms that cannot fsync a directory skip it. */
export async function syncDirectory(path: string): Promise<void> {
  step('sync', path);
  let dir: FileHandle;
  try {
    dir = await open(path, 'r');
  } catch {
    return;
  }
  try {
    await dir.sync();
  } catch {
    // Windows and some network filesystems refuse fsync on directories; the renames still happened.
  } finally {
    await dir.close();
  }
}

/**
 * The sibling names a directory replacement uses beside `target`: `.NAME.writing-*` while being filled (garbage once
 * its writer is gone), `.NAME.next` once complete, `.NAME.previous` for the old contents between the two renames.
 */
export function replacementPaths(target: string): { next: string; previous: string; writingPrefix: string } {
  const parent = dirname(target);
  const name = basename(target);
  return { next: join(parent, `.${name}.next`), previous: join(parent, `.${name}.previous`), writingPrefix: `.${name}.writing-` };
}

/**
 * Replaces a directory so that a crash at any point leaves a complete copy, old or new. The new contents are built
 * in `.NAME.writing-*` and fsynced, then renamed to `.NAME.next` (complete from then on); the old `NAME` is renamed to
 * `.NAME.previous`, `.NAME.next` renamed to `NAME`, and only then the old copy removed. A crash between the two
 * renames leaves no `NAME` but a complete `.NAME.next`: {@link readableDirectory} reads it, and
 * {@link recoverDirectory} (run first by the next replacement, or at a run's start) finishes the swap. A failure
 * while filling leaves the previous contents at `target` and no temp directory behind.
 */
export async function replaceDirectory(target: string, fill: (tempDir: string) => Promise<void>): Promise<void> {
  const parent = dirname(target);
  const { next, writingPrefix } = replacementPaths(target);
  await recoverDirectory(target);
  step('mkdir', parent);
  await mkdir(parent, { recursive: true });
  step('mkdtemp', parent);
  const temp = await mkdtemp(join(parent, writingPrefix));
  try {
    await fill(temp);
    await syncDirectory(temp);
  } catch (error) {
    await removeStep(temp);
    throw error;
  }
  await renameStep(temp, next);
  await syncDirectory(parent);
  await finishReplacement(target);
}

/** `.NAME.next` (complete) becomes `NAME`; the copy it replaces is renamed away first and removed last. */
async function finishReplacement(target: string): Promise<void> {
  const parent = dirname(target);
  const { next, previous } = replacementPaths(target);
  if (await pathExists(target)) {
    if (await pathExists(previous)) await removeStep(previous);
    await renameStep(target, previous);
    await syncDirectory(parent);
  }
  await renameStep(next, target);
  await syncDirectory(parent);
  await removeStep(previous);
}

/**
 * Finishes what an interrupted {@link replaceDirectory} left: a complete `.NAME.next` is moved into place, the old
 * copy and any half-filled temp directories are removed. Returns whether `target` exists afterwards.
 */
export async function recoverDirectory(target: string): Promise<boolean> {
  const parent = dirname(target);
  const { next, previous, writingPrefix } = replacementPaths(target);
  if (!(await pathExists(parent))) return false;
  if (await pathExists(next)) await finishReplacement(target);
  else if (await pathExists(previous)) await removeStep(previous);
  for (const entry of await readdir(parent)) if (entry.startsWith(writingPrefix)) await removeStep(join(parent, entry));
  return pathExists(target);
}

/**
 * Where to read `target` from without changing anything: `target` itself, or, when a replacement was interrupted
 * between its two renames, the complete `.NAME.next` beside it. Undefined when neither exists.
 */
export async function readableDirectory(target: string): Promise<string | undefined> {
  if (await pathExists(target)) return target;
  const { next } = replacementPaths(target);
  return (await pathExists(next)) ? next : undefined;
}
