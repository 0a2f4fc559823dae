import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { lockAbandoned, lockDirectory, type DirLock } from '../../native/io/dir-lock.ts';

/** The prefix of a trainer server's own temporary sampler directory. */
const TEMP_PREFIX = 'ludus-trainer-';

/** A folder of one trained model inside a sampler directory, as TrainedModels names it. */
const MODEL_FOLDER = /^model-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface SamplerDir {
  readonly dir: string;
  /** What was cleared at start, one line each, for the server to say. */
  readonly cleared: readonly string[];
  /** Lets go of the directory (removed whole when it was a temporary one). */
  close(): Promise<void>;
}

/**
 * The directory save_weights_for_sampler writes into, held by this server alone (a lock file; a second server
 * naming it is refused with RUN_LOCKED). What a killed predecessor left is cleared first: in a directory given with
 * --sampler-dir, every model folder (its models died with it, and its half-written saves, `.NAME.writing-*`, lie
 * inside them); without one, the temporary directories of trainer servers no longer running on this machine.
 * Nothing else in either place is touched.
 */
export async function openSamplerDir(given: string | undefined): Promise<SamplerDir> {
  const cleared: string[] = [];
  if (given === undefined) {
    for (const name of await readdir(tmpdir()).catch(() => [] as string[])) {
      const stale = join(tmpdir(), name);
      if (name.startsWith(TEMP_PREFIX) && (await lockAbandoned(stale))) {
        await rm(stale, { recursive: true, force: true });
        cleared.push(`removed ${stale}, the sampler directory of a trainer server that no longer runs`);
      }
    }
    const dir = await mkdtemp(join(tmpdir(), TEMP_PREFIX));
    const lock = await lockDirectory(dir, 'sampler directory');
    return { dir, cleared, close: () => closeTemporary(dir, lock) };
  }
  const dir = resolve(given);
  const lock = await lockDirectory(dir, 'sampler directory');
  const orphans = (await readdir(dir)).filter((name) => MODEL_FOLDER.test(name)).sort();
  for (const name of orphans) await rm(join(dir, name), { recursive: true, force: true });
  if (orphans.length > 0) cleared.push(`removed ${orphans.length} model folder${orphans.length === 1 ? '' : 's'} a previous server left in ${dir} (its models ended with it): ${orphans.join(', ')}`);
  return { dir, cleared, close: () => lock.release() };
}

async function closeTemporary(dir: string, lock: DirLock): Promise<void> {
  await lock.release();
  await rm(dir, { recursive: true, force: true });
}
