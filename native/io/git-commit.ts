import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** The commit checked out in `dir` (`git rev-parse HEAD`), or undefined where there is no git or no repository. */
export async function gitCommit(dir: string, options: { short?: boolean } = {}): Promise<string | undefined> {
  try {
    const { stdout } = await promisify(execFile)('git', ['-C', dir, 'rev-parse', ...(options.short ? ['--short'] : []), 'HEAD'], { timeout: 5000 });
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}
