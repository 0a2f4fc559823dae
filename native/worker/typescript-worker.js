// A worker thread starts without its parent's module hooks: teach it TypeScript, then start the module it was given.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { start } = await import(workerData.module);
await start(workerData.data);
