#!/usr/bin/env node
// ludus runs its compiled dist/ (built by `npm ci` / `npm run build`, and what the published package ships). From a
// checkout whose sources are newer than that build (or with LUDUS_SOURCE=1, or no build at all) it runs the
// TypeScript sources through tsx instead, so an edit is never hidden behind a stale build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = `${root}/dist/cli/main.js`;
const source = `${root}/cli/main.ts`;

/** The newest modification time of the TypeScript sources (about 300 files: tens of milliseconds). */
function newestSource() {
  let newest = statSync(`${root}/index.ts`).mtimeMs;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(`${dir}/${entry.name}`);
      else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(`${dir}/${entry.name}`).mtimeMs);
    }
  };
  for (const folder of ['core', 'native', 'plugins', 'games', 'engine', 'lab', 'server', 'composition', 'cli']) walk(`${root}/${folder}`);
  return newest;
}

const fromSource = existsSync(source) && (process.env.LUDUS_SOURCE === '1' || !existsSync(compiled) || newestSource() > statSync(compiled).mtimeMs);
if (fromSource) {
  const { register } = await import('tsx/esm/api');
  // ludus's own tsconfig (decorators, module resolution), not whatever the working directory holds.
  register({ tsconfig: `${root}/tsconfig.json` });
  globalThis.__ludusTypeScript = true;
}
await import(new URL(fromSource ? `file://${source}` : `file://${compiled}`).href);
