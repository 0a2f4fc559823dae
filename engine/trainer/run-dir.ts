import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fail } from '../../core/errors.ts';
import { LOCK_FILE } from '../../native/io/dir-lock.ts';
import { pathExists, recoverDirectory } from '../../native/io/files.ts';
import { policyDir } from './run-checkpoint.ts';
import { TRAINER_STATE_FILE } from './training-checkpoint.ts';

/** The run's resumable state (weights, AdamW moments, step, data cursor), replaced at every checkpoint. */
export const CHECKPOINT_DIR = 'checkpoint';
/** The policies as they were when validation scored best so far, one model directory per trainable policy. */
export const BEST_DIR = 'best';
/** What ran: the game, its roles and policies, and the whole training config (`--resume` reads it back). */
export const RUN_FILE = 'run.json';

/** The best policy of a run (by validation), as a model directory: `<run>/best/<policy>`. */
export function bestPolicyDir(runDir: string, policy: string): string {
  return join(runDir, BEST_DIR, policy);
}

/** The last checkpointed policy of a run, as a model directory. */
export function checkpointPolicyDir(runDir: string, policy: string): string {
  return policyDir(join(runDir, CHECKPOINT_DIR), policy);
}

/**
 * true: continue the run in `out` from its checkpoint, which must exist. false: a new run, into a directory that is
 * missing or empty. 'if-checkpoint': continue when a checkpoint exists, else start the run over (for callers that own
 * `out`, such as an experiment rerun after a crash before the first checkpoint). 'restart': start the run in `out`
 * over, its checkpoint and best/ dropped (`--restart`: a run stopped before its first checkpoint, or one given up on).
 */
export type ResumeMode = boolean | 'if-checkpoint' | 'restart';

/** Where a run keeps its resumable state: a directory of `out` replaced whole, and the file in it that marks it complete. */
export interface RunState {
  readonly dir: string;
  readonly file: string;
}

/**
 * Readies a run directory before anything is written to it, so two runs' files never mix: a new run refuses a
 * non-empty `out`, a resumed one refuses an `out` without a checkpoint (`state`: checkpoint/trainer_state.json unless
 * given; a tournament's is state/league.json). A save that a crash interrupted is finished
 * and its temp folders removed (native/io/files.ts recoverDirectory) for checkpoint/ and each best/<policy> of `best`.
 * Returns whether the run continues from its checkpoint.
 */
export async function prepareRunDir(out: string, options: { resume: ResumeMode; best?: readonly string[]; state?: RunState }): Promise<boolean> {
  const entries = await runDirEntries(out);
  const { dir, file } = options.state ?? { dir: CHECKPOINT_DIR, file: TRAINER_STATE_FILE };
  const checkpointDir = join(out, dir);
  if (options.resume === false) {
    if (entries.length > 0) {
      const shown = entries.slice(0, 4).join(', ') + (entries.length > 4 ? ', ...' : '');
      const ways = entries.includes(dir)
        ? 'continue that run with --resume, start it over with --restart, or give a new or empty --out'
        : RUN_MARKERS.some((marker) => entries.includes(marker))
          ? 'it stopped before its first checkpoint: start it over with --restart, or give a new or empty --out'
          : 'they are not a run of ludus: give a new or empty --out';
      fail('RUN_DIR_NOT_EMPTY', `${out}: already holds files (${shown}); ${ways}`, { dir: out });
    }
    return false;
  }
  if (options.resume === 'restart') {
    if (entries.length > 0 && !entries.includes(dir) && !RUN_MARKERS.some((marker) => entries.includes(marker))) {
      fail('RUN_DIR_NOT_EMPTY', `${out}: holds files (${entries.slice(0, 4).join(', ')}) but no run of ludus; --restart only starts over a run directory: give a new or empty --out`, { dir: out });
    }
    await rm(checkpointDir, { recursive: true, force: true });
    await rm(join(out, BEST_DIR), { recursive: true, force: true });
    return false;
  }
  const found = entries.length > 0 && (await recoverDirectory(checkpointDir)) && (await pathExists(join(checkpointDir, file)));
  if (entries.length > 0) for (const policy of options.best ?? []) await recoverDirectory(join(out, BEST_DIR, policy));
  if (found) return true;
  if (options.resume === true) {
    const next = entries.length === 0 ? 'start the run without --resume' : 'the run stopped before its first checkpoint: start it over in place with --restart instead of --resume';
    fail('NOTHING_TO_RESUME', `${out}: no checkpoint to resume from (${join(checkpointDir, file)} not found); ${next}`, { dir: out });
  }
  // Starting over: the trainer empties the logs; a best/ kept from the lost attempt would outlive it.
  await rm(join(out, BEST_DIR), { recursive: true, force: true });
  return false;
}

/** Files only a run writes, so `--restart` never empties a directory that is not a run's. */
const RUN_MARKERS = [RUN_FILE, 'metrics.jsonl', 'tournament.json'];

async function runDirEntries(out: string): Promise<string[]> {
  try {
    return (await readdir(out)).filter((name) => name !== LOCK_FILE).sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    if (code === 'ENOTDIR') fail('INPUT_INVALID', `${out}: is a file, not a run directory`, { dir: out });
    throw error;
  }
}
