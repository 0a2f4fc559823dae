import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory of ludus's own package.json, found by walking up from a module of ludus: the same whether ludus runs
 * from its sources or from its compiled dist/ (where models/, the viewer page and tools/ stay at the package root).
 */
export function packageRoot(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'ludus') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no ludus package.json above ${fileURLToPath(from)}`);
    dir = parent;
  }
}

/** A module at `name` (relative to `from`) with `from`'s extension: `.ts` when running from the sources, `.js` from dist/. */
export function siblingModule(from: string, name: string): URL {
  return new URL(`./${name}${extname(fileURLToPath(from))}`, from);
}
