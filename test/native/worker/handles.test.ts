import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { Registry } from '../../../native/worker/handles.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('Registry', () => {
  describe('having several uses of one object at once', () => {
    it('should run them one at a time, in call order', async () => {
      const registry = new Registry<'decoder', { log: string[] }>('decoder');
      const handle = registry.add({ log: [] });
      const use = (name: string) =>
        registry.use(handle, async (value) => {
          value.log.push(`${name} start`);
          await tick();
          value.log.push(`${name} end`);
          return name;
        });
      expect(await Promise.all([use('a'), use('b'), use('c')])).toEqual(['a', 'b', 'c']);
      expect(await registry.use(handle, (value) => value.log)).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
    });

    it('should go on after a use that fails', async () => {
      const registry = new Registry<'decoder', number>('decoder');
      const handle = registry.add(41);
      const failing = registry.use(handle, () => Promise.reject(new Error('failed use')));
      const next = registry.use(handle, (value) => value + 1);
      await expect(failing).rejects.toThrow('failed use');
      expect(await next).toBe(42);
    });
  });

  describe('having uses of different objects', () => {
    it('should not make one wait for the other', async () => {
      const registry = new Registry<'decoder', string>('decoder');
      const slow = registry.add('slow');
      const fast = registry.add('fast');
      const order: string[] = [];
      const a = registry.use(slow, async (v) => {
        await tick();
        await tick();
        order.push(v);
      });
      const b = registry.use(fast, (v) => {
        order.push(v);
      });
      await Promise.all([a, b]);
      expect(order).toEqual(['fast', 'slow']);
    });
  });

  describe('having a removed object', () => {
    it('should dispose of it after its queued uses, then refuse it with INPUT_INVALID', async () => {
      const registry = new Registry<'learner', string>('learner');
      const handle = registry.add('weights');
      const events: string[] = [];
      const queued = registry.use(handle, async () => {
        await tick();
        events.push('used');
      });
      await registry.remove(handle, async () => {
        events.push('disposed');
      });
      await queued;
      expect(events).toEqual(['used', 'disposed']);
      expect(registry.handles()).toEqual([]);
      await expect(registry.use(handle, () => 0)).rejects.toThrow(LudusError);
    });
  });

  describe('having a handle of another kind', () => {
    it('should refuse it with INPUT_INVALID', async () => {
      const decoders = new Registry<'decoder', number>('decoder');
      decoders.add(1);
      const error = await decoders.use({ kind: 'learner', id: 1 } as never, () => 0).catch((e: unknown) => e);
      expect(LudusError.is(error, 'INPUT_INVALID')).toBe(true);
    });
  });
});
