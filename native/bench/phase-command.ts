import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { siblingModule } from '../io/package-root.ts';

/** The phase entry (real-size-phase) beside this module; from the sources it runs under tsx's loader, from dist/ as plain JavaScript. */
export function phaseCommand(): string[] {
  const entry = fileURLToPath(siblingModule(import.meta.url, 'real-size-phase'));
  return entry.endsWith('.ts') ? ['--import', import.meta.resolve('tsx'), entry] : [entry];
}

/** Runs one benchmark phase (real-size-phases.ts) in a fresh node process; a coded refusal comes back as `{error}`. */
export function runPhase(name: string, options: Record<string, unknown>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...phaseCommand(), name, JSON.stringify(options)], { timeout: 3 * 3600_000, maxBuffer: 64 * 2 ** 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`bench phase ${name} failed${error.signal ? ` (killed by ${error.signal}${error.signal === 'SIGKILL' ? ': out of memory?' : ''})` : ''}: ${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>);
    });
  });
}
