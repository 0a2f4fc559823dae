// `npm run build` (before `npm pack`: install scripts are off in this checkout): compiles the sources to dist/ as JavaScript with .d.ts files, and
// copies the one plain-JavaScript module the compiler does not emit (the worker-thread bootstrap).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const root = new URL('../../', import.meta.url);
rmSync(new URL('dist', root), { recursive: true, force: true });
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', new URL('tsconfig.build.json', root).pathname], { stdio: 'inherit' });
mkdirSync(new URL('dist/native/worker/', root), { recursive: true });
copyFileSync(new URL('native/worker/typescript-worker.js', root), new URL('dist/native/worker/typescript-worker.js', root));
