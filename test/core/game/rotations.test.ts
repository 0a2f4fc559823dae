import { describe, expect, it } from 'vitest';
import { distinctSteps, Rotations } from '../../../core/game/rotations.ts';

const steps = (count: number) => Array.from({ length: count }, (_, step) => step);

describe('Rotations.fixed', () => {
  describe('having seats and trained policies', () => {
    it('should give the same seats and trained policies at every step', () => {
      const rotation = Rotations.fixed({ senior: 'senior', junior: 'junior' }, ['senior']);
      expect(rotation.period).toBe(1);
      for (const step of [0, 1, 2, 1000]) expect(rotation.at(step)).toEqual({ seats: { senior: 'senior', junior: 'junior' }, trains: ['senior'] });
    });
  });

  describe('having no trained policies named', () => {
    it('should train every seated policy once, a policy in two roles (self-play) included', () => {
      expect(Rotations.fixed({ proposer: 'self', critic: 'self' }).at(0).trains).toEqual(['self']);
    });
  });
});

describe('Rotations.alternateEveryStep', () => {
  describe('having two roles and two policies (Agon)', () => {
    it("should swap the policies' roles at every optimizer step and train both", () => {
      const rotation = Rotations.alternateEveryStep(['drafter', 'challenger'], ['a', 'b']);
      expect(steps(4).map((step) => rotation.at(step).seats)).toEqual([
        { drafter: 'a', challenger: 'b' },
        { drafter: 'b', challenger: 'a' },
        { drafter: 'a', challenger: 'b' },
        { drafter: 'b', challenger: 'a' },
      ]);
      expect(rotation.at(3).trains).toEqual(['a', 'b']);
    });
  });

  describe('having three roles', () => {
    it('should move each policy one role on per step, back home after three', () => {
      const rotation = Rotations.alternateEveryStep(['x', 'y', 'z'], ['a', 'b', 'c']);
      expect(steps(4).map((step) => Object.values(rotation.at(step).seats).join(''))).toEqual(['abc', 'cab', 'bca', 'abc']);
    });
  });

  describe('having a step that is not a whole number ≥ 0, or a policy count unlike the role count', () => {
    it('should fail with INPUT_INVALID, and CONFIG_INVALID', () => {
      const rotation = Rotations.alternateEveryStep(['a', 'b']);
      expect(() => rotation.at(-1)).toThrow(/INPUT_INVALID/);
      expect(() => rotation.at(1.5)).toThrow(/INPUT_INVALID/);
      expect(() => Rotations.alternateEveryStep(['a', 'b'], ['p'])).toThrow(/CONFIG_INVALID/);
    });
  });
});

describe('Rotations.interleave', () => {
  describe("having Tango's N_g = 3, N_v = 1", () => {
    it('should train the generator three steps, then the verifier one, and repeat, seats fixed', () => {
      const rotation = Rotations.interleave({ generator: 'g', verifier: 'v' }, [
        { policy: 'g', steps: 3 },
        { policy: 'v', steps: 1 },
      ]);
      expect(rotation.period).toBe(4);
      expect(steps(9).map((step) => rotation.at(step).trains[0])).toEqual(['g', 'g', 'g', 'v', 'g', 'g', 'g', 'v', 'g']);
      expect(rotation.at(7).seats).toEqual({ generator: 'g', verifier: 'v' });
    });
  });

  describe('having a phase without a positive whole number of steps, or no phase', () => {
    it('should fail with CONFIG_INVALID', () => {
      expect(() => Rotations.interleave({ generator: 'g' }, [{ policy: 'g', steps: 0 }])).toThrow(/CONFIG_INVALID.*"g"/);
      expect(() => Rotations.interleave({ generator: 'g' }, [{ policy: 'g', steps: 1.5 }])).toThrow(/CONFIG_INVALID/);
      expect(() => Rotations.interleave({ generator: 'g' }, [])).toThrow(/CONFIG_INVALID/);
    });
  });
});

describe('Rotations.warmup', () => {
  describe("having Tango's verifier warm-up before its 3 : 1 interleave", () => {
    it('should train only the verifier for the warm-up, then interleave from its own step 0; a function of the step, not a period', () => {
      const rotation = Rotations.warmup(
        { steps: 2, trains: ['v'] },
        Rotations.interleave({ generator: 'g', verifier: 'v' }, [
          { policy: 'g', steps: 3 },
          { policy: 'v', steps: 1 },
        ]),
      );
      expect(steps(8).map((step) => rotation.at(step).trains.join('+'))).toEqual(['v', 'v', 'g', 'g', 'g', 'v', 'g', 'g']);
      expect(rotation.at(0).seats).toEqual({ generator: 'g', verifier: 'v' });
      expect(rotation.offset).toBe(2);
      expect(distinctSteps(rotation)).toEqual([0, 1, 2, 3, 4, 5]);
    });
  });
});
