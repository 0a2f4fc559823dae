import { spawnSync } from 'node:child_process';
import { describe, it } from 'vitest';

/** The Python that cross-checks run against (Debian's python3-torch by default; LUDUS_PYTHON overrides it). */
export const PYTHON = process.env.LUDUS_PYTHON ?? '/usr/bin/python3';

/** Why `PYTHON` cannot import `modules`, or null when it can. */
export function pythonMissing(modules: readonly string[]): string | null {
  const probe = spawnSync(PYTHON, ['-c', `import ${modules.join(', ')}`], { encoding: 'utf8', timeout: 60_000 });
  if (probe.error) return `${PYTHON} could not be run (${probe.error.message})`;
  if (probe.status !== 0) return `${PYTHON} cannot import ${modules.join(', ')}: ${probe.stderr.trim().split('\n').pop()}`;
  return null;
}

/**
 * A suite that needs an optional dependency. Present, it runs. Missing under CI=true, the run fails: a check must
 * not vanish into a skip where it is expected to run. Missing elsewhere, it is skipped, and says so in its title
 * and on stderr, which the test summary shows.
 */
export function describeNeeding(dependency: string, missing: string | null, title: string, body: () => void): void {
  if (missing === null) {
    describe(title, body);
  } else if (process.env.CI === 'true') {
    describe(title, () => {
      it(`needs ${dependency}`, () => {
        throw new Error(`CI=true requires ${dependency}: ${missing} (set LUDUS_PYTHON to a python that has it)`);
      });
    });
  } else {
    process.stderr.write(`skipped "${title}": ${dependency} is missing (${missing})\n`);
    describe.skip(`${title} [skipped: ${dependency} is missing]`, body);
  }
}
