import { afterEach, describe, expect, it } from 'vitest';
import { WorkerRpc } from '../../../native/worker/worker-rpc.ts';
import type { ProbeMethods } from './fixtures/probe-worker.ts';
import { rejection } from '../../support/errors.ts';

const probe = new URL('./fixtures/probe-worker.ts', import.meta.url);
const started: WorkerRpc<ProbeMethods>[] = [];

async function spawnProbe(): Promise<WorkerRpc<ProbeMethods>> {
  const rpc = await WorkerRpc.spawn<ProbeMethods>(probe, { label: 'probe worker' });
  started.push(rpc);
  return rpc;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((rpc) => rpc.terminate()));
});

describe('WorkerRpc', () => {
  describe('having a method that returns', () => {
    it('should resolve with a structured clone of its value', async () => {
      const rpc = await spawnProbe();
      const value = { ids: Int32Array.of(1, 2), map: new Map([['a', [1.5]]]) };
      expect(await rpc.call('echo', [value])).toEqual(value);
    });
  });

  describe('having a method that emits events', () => {
    it('should deliver every event, in order, before the result', async () => {
      const rpc = await spawnProbe();
      const events: number[] = [];
      expect(await rpc.call('count', [50], { onEvent: (i) => events.push(i) })).toBe(50);
      expect(events).toEqual(Array.from({ length: 50 }, (_, i) => i));
    });

    it('should fail the call with what a throwing listener threw, and abort it in the worker', async () => {
      const rpc = await spawnProbe();
      const thrown = new Error('listener broke');
      const error = await rpc.call('tickUntilAborted', [], { onEvent: () => { throw thrown; } }).catch((e: unknown) => e);
      expect(error).toBe(thrown);
      expect(await rpc.call('echo', ['still serving'])).toBe('still serving');
    });
  });

  describe('having an abort signal', () => {
    it('should abort the call in the worker', async () => {
      const rpc = await spawnProbe();
      const controller = new AbortController();
      const ticks = await rpc.call('tickUntilAborted', [], { signal: controller.signal, onEvent: (i) => i === 10 && controller.abort() });
      expect(ticks).toBeGreaterThanOrEqual(11);
    });

    it('should start the call aborted when the signal fired before it was made', async () => {
      const rpc = await spawnProbe();
      expect(await rpc.call('tickUntilAborted', [], { signal: AbortSignal.abort() })).toBe(0);
    });
  });

  describe('having a method that throws a LudusError', () => {
    it('should reject with the same code, message and details', async () => {
      const rpc = await spawnProbe();
      const error = await rejection(rpc.call('failWith', ['NON_FINITE', 'loss is NaN', { step: 4, names: ['a'] }]));
      expect(error.code).toBe('NON_FINITE');
      expect(error.message).toBe('[NON_FINITE] loss is NaN');
      expect(error.details).toEqual({ step: 4, names: ['a'] });
    });

    it('should keep the code when the details cannot be cloned, sending what JSON keeps', async () => {
      const rpc = await spawnProbe();
      const error = await rejection(rpc.call('failWithUncloneableDetails', []));
      expect(error.code).toBe('INPUT_INVALID');
      expect(error.details).toEqual({ row: 3 });
    });
  });

  describe('having a method that throws something else (a bug)', () => {
    it('should reject with WORKER_FAILED naming the method and the error', async () => {
      const rpc = await spawnProbe();
      const error = await rejection(rpc.call('throwBug', []));
      expect(error.code).toBe('WORKER_FAILED');
      expect(error.message).toContain('throwBug threw TypeError: cannot read properties of undefined');
      expect(await rpc.call('echo', [1])).toBe(1);
    });
  });

  describe('having values that cannot cross threads', () => {
    it('should reject arguments with INPUT_INVALID and results with WORKER_FAILED', async () => {
      const rpc = await spawnProbe();
      expect((await rejection(rpc.call('echo', [() => 1]))).code).toBe('INPUT_INVALID');
      expect((await rejection(rpc.call('returnUncloneable', []))).code).toBe('WORKER_FAILED');
    });
  });

  describe('having a worker that crashes', () => {
    it('should reject every pending call, and every later one, with WORKER_FAILED', async () => {
      const rpc = await spawnProbe();
      const pending = [rpc.call('hang', []), rpc.call('hang', []), rpc.call('crashSoon', [])];
      const errors = await Promise.all(pending.map(rejection));
      expect(errors.map((e) => e.code)).toEqual(['WORKER_FAILED', 'WORKER_FAILED', 'WORKER_FAILED']);
      expect(errors[0].message).toContain('boom outside any call');
      expect(errors[0].details).toMatchObject({ method: 'hang' });
      expect((await rejection(rpc.call('echo', [1]))).code).toBe('WORKER_FAILED');
    });
  });

  describe('having a worker that exits', () => {
    it('should reject pending calls with WORKER_FAILED and the exit code', async () => {
      const rpc = await spawnProbe();
      const hanging = rpc.call('hang', []);
      const exiting = rpc.call('exit', [3]);
      for (const error of await Promise.all([hanging, exiting].map(rejection))) {
        expect(error.code).toBe('WORKER_FAILED');
        expect(error.details).toMatchObject({ exitCode: 3 });
      }
    });
  });

  describe('having a module that fails to load', () => {
    it('should fail to start with WORKER_FAILED', async () => {
      const error = await rejection(WorkerRpc.spawn(new URL('./fixtures/missing-worker.ts', import.meta.url), { label: 'missing worker' }));
      expect(error.code).toBe('WORKER_FAILED');
      expect(error.message).toContain('missing worker failed to start');
    });
  });
});
