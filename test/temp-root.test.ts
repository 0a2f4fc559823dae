import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { expect, test } from 'vitest';

test('test files and the processes they spawn make temporary directories under the run’s own, removed at its end', () => {
  expect(basename(tmpdir())).toMatch(/^ludus-test-run-/);
  const child = execFileSync(process.execPath, ['-e', 'process.stdout.write(require("node:os").tmpdir())']).toString();
  expect(child).toBe(tmpdir());
  expect(dirname(tmpdir())).not.toBe(tmpdir());
  // One directory for the whole run, not one per project of the config nested in another.
  expect(basename(dirname(tmpdir()))).not.toMatch(/^ludus-test-run-/);
});
