import { parentPort } from 'node:worker_threads';
import { engineMethods, type EngineDefaults } from './engine-methods.ts';
import { serveMethods } from './serve.ts';

export function start(defaults: EngineDefaults): void {
  serveMethods(parentPort!, engineMethods(defaults));
}
