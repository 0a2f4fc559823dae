import { mkdir, mkdtemp, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Largest slice handed to one read or write call (the OS caps a single call near 2 GiB). */
const IO_CHUNK_BYTES = 1 << 30;

export const isMissingFileError = (error: unknown): boolean => (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';

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

export async function writeAll(file: FileHandle, bytes: Uint8Array): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await file.write(bytes, done, Math.min(bytes.length - done, IO_CHUNK_BYTES));
    done += bytesWritten;
  }
}

/** Creates (or truncates) `path`, lets `fill` write into it, then fsyncs before closing. */
export async function writeFileDurably(path: string, fill: Uint8Array | string | ((file: FileHandle) => Promise<void>)): Promise<void> {
  const file = await open(path, 'w');
  try {
    if (typeof fill === 'function') await fill(file);
    else await writeAll(file, typeof fill === 'string' ? Buffer.from(fill, 'utf8') : fill);
    await file.sync();
  } finally {
    await file.close();
  }
}

/**
 * Writes a whole file or nothing: the bytes go to a temp sibling, are fsynced, and the temp is renamed over `path`
 * (atomic on POSIX filesystems), so a reader or a crash never sees a half-written file.
 */
export async function writeFileAtomically(path: string, contents: Uint8Array | string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${basename(path)}.writing-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    await writeFileDurably(temp, contents);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncDirectory(dir);
}

/** Makes a directory's entries (creations, renames) durable. Platforms that cannot fsync a directory skip it. */
export async function syncDirectory(path: string): Promise<void> {
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
 * Builds a directory's new contents in a temp sibling, then swaps it in: the old directory (if any) is renamed
 * away, the new one renamed into place, and only then the old one removed. A failure at any step leaves the
 * previous contents at `target` and no temp directory behind.
 */
export async function replaceDirectory(target: string, fill: (tempDir: string) => Promise<void>): Promise<void> {
  const parent = dirname(target);
  await mkdir(parent, { recursive: true });
  const temp = await mkdtemp(join(parent, `.${basename(target)}.writing-`));
  const displaced = `${temp}.displaced`;
  let movedAway = false;
  try {
    await fill(temp);
    await syncDirectory(temp);
    if (await pathExists(target)) {
      await rename(target, displaced);
      movedAway = true;
    }
    await rename(temp, target);
  } catch (error) {
    if (movedAway && !(await pathExists(target))) await rename(displaced, target).catch(() => undefined);
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
  await syncDirectory(parent);
  if (movedAway) await rm(displaced, { recursive: true, force: true });
}
