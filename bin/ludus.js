#!/usr/bin/env node
// From a checkout, ludus runs its TypeScript sources through tsx; the published package runs its compiled dist/.
// tsx is registered either way: a user's --plugin module may be TypeScript.
import { existsSync } from 'node:fs';
import { register } from 'tsx/esm/api';

register();
const source = new URL('../cli/main.ts', import.meta.url);
await import(existsSync(source) ? source.href : new URL('../dist/cli/main.js', import.meta.url).href);
