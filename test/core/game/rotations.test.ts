import { describe, expect, it } from 'vitest';
import { Rotations } from '../../../core/game/rotations.ts';

const steps = (count: number) => Array.from({ length: count }, (_, step) => step);

describe('Rotations.fixed', () => {
  describe('having seats and trained roles', () => {
    it('should give the same seats and trained roles at every step', () => {
      const rotation = Rotations.fixed(['senior', 'junior'], ['senior']);
      expect(rotation.period).toBe(1);
      for (const step of [0, 1, 2, 1000]) expect(rotation.at(step)).toEqual({ seats: ['senior', 'junior'], trains: ['senior'] });
    });
  });
});

describe('Rotations.alternateEveryStep', () => {
  describe('having two seats (Agon)', () => {
    it('should swap the policies\' roles at every optimizer step and train both', () => {
      const rotation = Rotations.alternateEveryStep(['drafter', 'challenger']);
      expect(steps(4).map((step) => rotation.at(step).seats)).toEqual([
        ['drafter', 'challenger'],
        ['challenger', 'drafter'],
        ['drafter', 'challenger'],
        ['challenger', 'drafter'],
      ]);
      expect(rotation.at(3).trains).toEqual(['drafter', 'challenger']);
    });
  });

  describe('having three seats', () => {
    it('should move each policy one seat on per step, back home after three', () => {
      const rotation = Rotations.alternateEveryStep(['a', 'b', 'c']);
      expect(steps(4).map((step) => rotation.at(step).seats.join(''))).toEqual(['abc', 'bca', 'cab', 'abc']);
    });
  });

  describe('having a step that is not a whole number ≥ 0', () => {
    it('should fail with INPUT_INVALID', () => {
      const rotation = Rotations.alternateEveryStep(['a', 'b']);
      expect(() => rotation.at(-1)).toThrow(/INPUT_INVALID/);
      expect(() => rotation.at(1.5)).toThrow(/INPUT_INVALID/);
    });
  });
});

describe('Rotations.interleave', () => {
  describe('having Tango\'s N_g = 3, N_v = 1', () => {
    it('should train the generator three steps, then the verifier one, and repeat, seats fixed', () => {
      const rotation = Rotations.interleave([
        { role: 'generator', steps: 3 },
        { role: 'verifier', steps: 1 },
      ]);
      expect(rotation.period).toBe(4);
      expect(steps(9).map((step) => rotation.at(step).trains[0])).toEqual([
        'generator',
        'generator',
        'generator',
        'verifier',
        'generator',
        'generator',
        'generator',
        'verifier',
        'generator',
      ]);
      expect(rotation.at(7).seats).toEqual(['generator', 'verifier']);
    });
  });

  describe('having a phase without a positive whole number of steps, or no phase', () => {
    it('should fail with CONFIG_INVALID', () => {
      expect(() => Rotations.interleave([{ role: 'generator', steps: 0 }])).toThrow(/CONFIG_INVALID.*generator/);
      expect(() => Rotations.interleave([{ role: 'generator', steps: 1.5 }])).toThrow(/CONFIG_INVALID/);
      expect(() => Rotations.interleave([])).toThrow(/CONFIG_INVALID/);
    });
  });
});
