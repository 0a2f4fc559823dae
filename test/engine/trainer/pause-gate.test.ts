import { describe, expect, it } from 'vitest';
import { PauseGate } from '../../../engine/trainer/pause-gate.ts';

describe('PauseGate', () => {
  describe('having been paused', () => {
    it('should hold waiters until resumed, and let them through at once when open', async () => {
      const gate = new PauseGate();
      await gate.wait();
      gate.pause();
      let passed = false;
      const waiting = gate.wait().then(() => {
        passed = true;
      });
      for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
      expect(passed).toBe(false);
      expect(gate.isPaused).toBe(true);
      gate.resume();
      await waiting;
      expect(passed).toBe(true);
      expect(gate.isPaused).toBe(false);
    });
  });
});
