import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { NonFiniteGuard } from '../../../engine/trainer/non-finite-guard.ts';

const nonFinite = async (): Promise<number> => {
  throw new LudusError('NON_FINITE', 'loss is NaN; update skipped');
};

describe('NonFiniteGuard', () => {
  describe('having a NON_FINITE step', () => {
    it('should skip it, count it, and reset the streak on the next good step', async () => {
      const guard = new NonFiniteGuard(3);
      expect(await guard.run(nonFinite)).toBeUndefined();
      expect(guard).toMatchObject({ consecutive: 1, skipped: 1 });
      expect(await guard.run(async () => 7)).toBe(7);
      expect(guard).toMatchObject({ consecutive: 0, skipped: 1 });
    });
  });

  describe('having `limit` NON_FINITE steps in a row', () => {
    it('should abort with NON_FINITE naming the streak', async () => {
      const guard = new NonFiniteGuard(2);
      await guard.run(nonFinite);
      await expect(guard.run(nonFinite)).rejects.toMatchObject({ code: 'NON_FINITE', details: { consecutive: 2, skipped: 2 } });
    });

    it('should carry a streak restored from a checkpoint', async () => {
      await expect(new NonFiniteGuard(2, 1, 4).run(nonFinite)).rejects.toMatchObject({ code: 'NON_FINITE' });
    });
  });

  describe('having any other error', () => {
    it('should let it through uncounted', async () => {
      const guard = new NonFiniteGuard(2);
      await expect(guard.run(async () => Promise.reject(new LudusError('INPUT_INVALID', 'bad')))).rejects.toMatchObject({ code: 'INPUT_INVALID' });
      expect(guard.skipped).toBe(0);
    });
  });
});
