import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './package-root.ts';

/** ludus's own version, from its package.json (whether run from the sources or from dist/). */
export const LUDUS_VERSION: string = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
