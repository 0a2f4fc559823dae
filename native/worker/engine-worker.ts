import { parentPort } from 'node:worker_threads';
import { engineMethods, type EngineDefaults } from './engine-methods.ts';
import { serveMethods } from './serve.ts';
import { fail } from '../../core/errors.ts';

export function start(defaults: EngineDefaults): void {
  serveMethods(parentPort ?? fail('WORKER_FAILED', `${import.meta.url} runs only as a worker thread`), engineMethods(defaults));
}
