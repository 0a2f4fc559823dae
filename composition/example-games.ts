import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { packageRoot } from '../native/io/package-root.ts';

/**
 * For a game that is not in the catalog but is one of ludus's examples (`examples/<name>/<name>.ts`, a plugin module):
 * the --plugin that adds it, as a path from the working directory. Undefined for any other name.
 */
export function exampleGameHint(name: string): string | undefined {
  if (!/^[\w-]+$/.test(name)) return undefined;
  const file = join(packageRoot(import.meta.url), 'examples', name, `${name}.ts`);
  if (!existsSync(file)) return undefined;
  const shown = relative(process.cwd(), file);
  return `"${name}" is an example game, not a built-in: add --plugin ${shown.startsWith('..') ? file : shown}; `;
}
