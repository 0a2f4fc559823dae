import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Vitest global setup: every test file (and every CLI process a test spawns) makes its temporary directories under
 * one directory of this run, which is removed when the run ends. Tests create hundreds of run directories, model
 * copies and packed user projects; without this they accumulate in the system's temporary directory run after run.
 * The workers inherit TMPDIR because they are forked after this runs; `os.tmpdir()` reads it. Each project of the
 * config (the light and the slow files) runs this setup; the first makes the directory, the others use it.
 */
export default function setup(): () => void {
  if (process.env.LUDUS_TEST_RUN_ROOT !== undefined) return () => {};
  const root = mkdtempSync(join(tmpdir(), 'ludus-test-run-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  process.env.LUDUS_TEST_RUN_ROOT = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    delete process.env.LUDUS_TEST_RUN_ROOT;
    if (process.env.LUDUS_KEEP_TEST_TMP === undefined) rmSync(root, { recursive: true, force: true });
  };
}
