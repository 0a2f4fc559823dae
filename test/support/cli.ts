import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const LUDUS_BIN = fileURLToPath(new URL('../../bin/ludus.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `ludus ...args` as a user would, in a child process. */
export function runLudus(args: string[], options: { timeoutMs?: number; cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [LUDUS_BIN, ...args], { timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 2 ** 20, cwd: options.cwd, env: options.env }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Writes `config` as JSON to `name` in a new temporary directory; returns both paths. */
export async function configFile(config: object, name = 'config.json'): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'ludus-cli-config-'));
  const file = join(dir, name);
  await writeFile(file, JSON.stringify(config));
  return { dir, file };
}
