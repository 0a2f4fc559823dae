import { readFileSync } from 'node:fs';

/** ludus's own version, from its package.json (found above this file, whether run from source or from dist/). */
export const LUDUS_VERSION: string = (() => {
  for (const up of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'ludus' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not this level
    }
  }
  return '0.0.0';
})();
