import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { validateTrajectory } from '../../../core/trajectory/validate-trajectory.ts';
import { JUNIOR, SENIOR, tandemTrajectory } from './fixtures.ts';

describe('validateTrajectory', () => {
  describe('having consistent per-token arrays and its own schedule hash', () => {
    it('should return it', () => {
      const trajectory = tandemTrajectory([SENIOR, JUNIOR, SENIOR], {
        partnerLogprobs: [
          [-0.1, -0.2, -0.3],
          [-1, -2, -3],
        ],
        stepEnds: [1, 2],
        stepRewards: [0.5, -0.5],
        tokenRewards: [0, 0, 1],
      });
      expect(validateTrajectory(trajectory)).toBe(trajectory);
    });
  });

  describe('having an inconsistent trajectory', () => {
    it('should fail with TRAJECTORY_INVALID naming the match and what is off', () => {
      const base = tandemTrajectory([SENIOR, JUNIOR, SENIOR]);
      const cases: [Partial<typeof base>, RegExp][] = [
        [{ logprobs: [-1, -1] }, /logprobs has 2 entries for 3 response tokens/],
        [{ authors: [0, 1, 2] }, /token 2 has author 2/],
        [{ partnerLogprobs: [[-1, -1, -1]] }, /partnerLogprobs has 1 rows for 2 authors/],
        [{ partnerLogprobs: [[-1, -1, -1], [-1]] }, /partnerLogprobs\[1\] has 1 entries/],
        [{ stepEnds: [2, 1] }, /stepEnds must be ascending/],
        [{ stepEnds: [3] }, /stepEnds must be ascending token indices below 3/],
        [{ stepEnds: [0, 2], stepRewards: [1] }, /stepRewards has 1 entries for 2 step ends/],
        [{ outcome: { senior: 1 } }, /no outcome reward for role "junior"/],
        [{ scheduleHash: '0000000000000000' }, /scheduleHash 0000000000000000 does not match/],
      ];
      for (const [override, message] of cases) {
        try {
          validateTrajectory({ ...base, ...override });
          expect.unreachable(`accepted ${JSON.stringify(override)}`);
        } catch (error) {
          expect(LudusError.is(error, 'TRAJECTORY_INVALID')).toBe(true);
          expect((error as LudusError).message).toContain('match "match-42" turn 0');
          expect((error as LudusError).message).toMatch(message);
        }
      }
    });
  });
});
