import { describe, expect, it } from 'vitest';
import { LudusError, type LudusErrorCode } from '../../../core/errors.ts';
import { authorShare } from '../../../core/trajectory/author-share.ts';
import { batchLossMasks, lossMask } from '../../../core/trajectory/loss-mask.ts';
import { ENV_AUTHOR } from '../../../core/trajectory/trajectory.ts';
import { JUNIOR, SENIOR, tandemTrajectory } from './fixtures.ts';

const band = { shareBand: [0.2, 0.8] as const };

/** Runs `compute` and returns the coded error it must throw. */
function errorOf(compute: () => unknown, code: LudusErrorCode): LudusError {
  try {
    compute();
  } catch (error) {
    expect(LudusError.is(error, code), String(error)).toBe(true);
    return error as LudusError;
  }
  return expect.unreachable(`no ${code} was thrown`);
}

describe('authorShare', () => {
  describe('having a co-written response', () => {
    it('should give the fraction of tokens each author wrote', () => {
      const trajectory = tandemTrajectory([SENIOR, JUNIOR, JUNIOR, SENIOR, JUNIOR]);
      expect(authorShare(trajectory, SENIOR)).toBe(0.4);
      expect(authorShare(trajectory, JUNIOR)).toBe(0.6);
      expect(authorShare(trajectory, 2)).toBe(0);
    });
  });

  describe('having an empty response', () => {
    it('should be 0, not NaN', () => {
      expect(authorShare(tandemTrajectory([]), SENIOR)).toBe(0);
    });
  });
});

describe('lossMask', () => {
  describe('having a trainable author with a share inside the band', () => {
    it('should select exactly that author\'s tokens and report its share', () => {
      const result = lossMask(tandemTrajectory([SENIOR, JUNIOR, JUNIOR, SENIOR, JUNIOR]), [SENIOR], band);
      expect(result.mask).toEqual([1, 0, 0, 1, 0]);
      expect(result.shares).toEqual([{ author: SENIOR, role: 'senior', share: 0.4 }]);
    });

    it('should accept shares exactly on the band\'s edges', () => {
      const authors = [SENIOR, JUNIOR, JUNIOR, JUNIOR, JUNIOR];
      expect(lossMask(tandemTrajectory(authors), [SENIOR], band).shares[0].share).toBe(0.2);
      expect(lossMask(tandemTrajectory(authors), [JUNIOR], band).shares[0].share).toBe(0.8);
    });
  });

  describe('having several trainable authors (one policy in two seats)', () => {
    it('should select the union of their tokens and check each share', () => {
      const result = lossMask(tandemTrajectory([SENIOR, JUNIOR, SENIOR, JUNIOR]), [SENIOR, JUNIOR], { shareBand: [0.5, 0.5] });
      expect(result.mask).toEqual([1, 1, 1, 1]);
      expect(result.shares.map((s) => s.share)).toEqual([0.5, 0.5]);
    });
  });

  describe('having a trainable author who wrote nothing', () => {
    it('should fail closed with MASK_EMPTY naming the match and the role, even with a band from 0', () => {
      const error = errorOf(() => lossMask(tandemTrajectory([JUNIOR, JUNIOR, JUNIOR]), [SENIOR], { shareBand: [0, 1] }), 'MASK_EMPTY');
      expect(error.message).toContain('match "match-42"');
      expect(error.message).toContain('"senior"');
      expect(error.details).toMatchObject({ matchId: 'match-42', role: 'senior', share: 0 });
    });

    it('should fail closed on an empty response', () => {
      errorOf(() => lossMask(tandemTrajectory([]), [SENIOR], { shareBand: [0, 1] }), 'MASK_EMPTY');
    });

    it('should fail closed when no trainable author is named at all', () => {
      errorOf(() => lossMask(tandemTrajectory([SENIOR]), [], band), 'MASK_EMPTY');
    });
  });

  describe('having a trainable author whose share is outside the band', () => {
    it('should fail closed with AUTHOR_SHARE_OUT_OF_BAND naming the match and the share, above or below', () => {
      const monopoly = errorOf(() => lossMask(tandemTrajectory([SENIOR, SENIOR, SENIOR, SENIOR, SENIOR, SENIOR, SENIOR, SENIOR, SENIOR, JUNIOR]), [SENIOR], band), 'AUTHOR_SHARE_OUT_OF_BAND');
      expect(monopoly.message).toContain('match "match-42"');
      expect(monopoly.message).toContain('90.0%');
      expect(monopoly.details).toMatchObject({ matchId: 'match-42', role: 'senior', share: 0.9, band: [0.2, 0.8] });

      const starved = errorOf(() => lossMask(tandemTrajectory([SENIOR, ...new Array(9).fill(JUNIOR)]), [SENIOR], band), 'AUTHOR_SHARE_OUT_OF_BAND');
      expect(starved.details).toMatchObject({ share: 0.1 });
    });
  });

  describe('having a band that is not a sub-interval of [0, 1]', () => {
    it('should fail with CONFIG_INVALID', () => {
      for (const shareBand of [[0.8, 0.2], [-0.1, 0.5], [0.5, 1.1], [Number.NaN, 1]] as const) {
        errorOf(() => lossMask(tandemTrajectory([SENIOR, JUNIOR]), [SENIOR], { shareBand }), 'CONFIG_INVALID');
      }
    });
  });

  describe('having a trainable author index the trajectory does not have', () => {
    it('should fail with INPUT_INVALID', () => {
      errorOf(() => lossMask(tandemTrajectory([SENIOR, JUNIOR]), [2], band), 'INPUT_INVALID');
    });
  });
});

describe('batchLossMasks', () => {
  describe('having one match the junior wrote entirely, among co-written ones', () => {
    it('should give that match an all-zero mask and check the band on the whole batch', () => {
      const batch = [tandemTrajectory([JUNIOR, JUNIOR, JUNIOR]), tandemTrajectory([SENIOR, JUNIOR, SENIOR, SENIOR, JUNIOR])];
      const { masks, shares } = batchLossMasks(batch, [SENIOR], band);
      expect(masks[0].mask).toEqual([0, 0, 0]);
      expect(masks[0].shares[0].share).toBe(0);
      expect(masks[1].mask).toEqual([1, 0, 1, 1, 0]);
      expect(shares[0].share).toBe(3 / 8);
    });
  });

  describe('having a batch in which the trainable role wrote nothing', () => {
    it('should fail closed with MASK_EMPTY', () => {
      const batch = [tandemTrajectory([JUNIOR, JUNIOR]), tandemTrajectory([JUNIOR])];
      const error = errorOf(() => batchLossMasks(batch, [SENIOR], band), 'MASK_EMPTY');
      expect(error.message).toContain('2 matches');
    });
  });

  describe('having a batch whose aggregate share is outside the band', () => {
    it('should fail closed with AUTHOR_SHARE_OUT_OF_BAND naming the share', () => {
      const batch = [tandemTrajectory([SENIOR, JUNIOR, JUNIOR, JUNIOR, JUNIOR]), tandemTrajectory([JUNIOR, JUNIOR, JUNIOR, JUNIOR, JUNIOR])];
      const error = errorOf(() => batchLossMasks(batch, [SENIOR], band), 'AUTHOR_SHARE_OUT_OF_BAND');
      expect(error.details).toMatchObject({ share: 0.1, matches: 2 });
    });
  });
});

describe('the loss mask of a turn that called a tool', () => {
  // A hand-built row: the solver's call, the environment's result (author env), the solver's answer after it.
  const SOLVER = 0;
  const ENV = 1;
  const row = tandemTrajectory([SOLVER, SOLVER, SOLVER, ENV, ENV, ENV, ENV, SOLVER, SOLVER], { roles: ['solver', ENV_AUTHOR], schedule: { kind: 'solo' }, outcome: { solver: 1 } });

  it("should train the solver's tokens and none of the environment's", () => {
    expect(lossMask(row, [SOLVER], { shareBand: [0, 1] }).mask).toEqual([1, 1, 1, 0, 0, 0, 0, 1, 1]);
  });

  it('should fail closed when the environment is named trainable, alone or beside a role', () => {
    for (const authors of [[ENV], [SOLVER, ENV]]) {
      const error = errorOf(() => lossMask(row, authors, { shareBand: [0, 1] }), 'MASK_EMPTY');
      expect(error.message).toContain('"env", the environment\'s tokens, which no loss may train');
    }
  });

  it('should hold 0 on environment tokens even where a batch numbers its authors otherwise', () => {
    // Here the first row has no env tokens, so author 1 is not env in its roles: the env tokens of the second stay 0.
    const plain = tandemTrajectory([SOLVER, SOLVER], { roles: ['solver'], schedule: { kind: 'solo' }, outcome: { solver: 1 } });
    const { masks } = batchLossMasks([plain, row], [SOLVER], { shareBand: [0, 1] });
    expect(masks.map((m) => m.mask)).toEqual([
      [1, 1],
      [1, 1, 1, 0, 0, 0, 0, 1, 1],
    ]);
  });
});
