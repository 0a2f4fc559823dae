import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const LUDUS_BIN = fileURLToPath(new URL('../../bin/ludus.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `ludus ...args` as a user would, in a child process. */
export function runLudus(args: string[], options: { timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [LUDUS_BIN, ...args], { timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 2 ** 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
