// A worker thread starts without its parent's module hooks: when the module it was given is TypeScript (ludus run from
// its sources), teach the thread TypeScript first; then start the module.
import { workerData } from 'node:worker_threads';

if (/\.[cm]?ts$/.test(new URL(workerData.module).pathname)) {
  const { register } = await import('tsx/esm/api');
  // ludus's own tsconfig (decorators, module resolution), not whatever the working directory holds.
  register({ tsconfig: new URL('../../tsconfig.json', import.meta.url).pathname });
  globalThis.__ludusTypeScript = true;
}
const { start } = await import(workerData.module);
await start(workerData.data);
