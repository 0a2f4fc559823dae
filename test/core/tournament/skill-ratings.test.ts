import { describe, expect, it } from 'vitest';
import { conservativeRating, initialSkill, rateContest, WENG_LIN_DEFAULTS, type Skill } from '../../../core/tournament/skill-ratings.ts';

const solo = (entrant: string, score: number) => ({ members: [{ entrant, weight: 1 }], score });
const close = (skill: Skill | undefined, mu: number, sigma: number) => {
  expect(skill!.mu).toBeCloseTo(mu, 2);
  expect(skill!.sigma).toBeCloseTo(sigma, 2);
};

describe('rateContest (openskill, Plackett–Luce)', () => {
  describe("having the library's documented examples", () => {
    it('should rate a 2 v 2 won by a1 and a2 as the README does', () => {
      const skills: Record<string, Skill> = { a1: initialSkill(WENG_LIN_DEFAULTS), a2: { mu: 32.444, sigma: 5.123 }, b1: { mu: 43.381, sigma: 2.421 }, b2: { mu: 25.188, sigma: 6.211 } };
      const team = (names: string[], score: number) => ({ members: names.map((entrant) => ({ entrant, weight: 1 })), score });
      const rated = rateContest((name) => skills[name], [team(['a1', 'a2'], 1), team(['b1', 'b2'], 0)]);
      close(rated.get('a1'), 28.67, 8.07);
      close(rated.get('a2'), 33.83, 5.06);
      close(rated.get('b1'), 43.07, 2.42);
      close(rated.get('b2'), 23.15, 6.14);
    });
    it('should rate four players ranked 4, 1, 3, 2 as the README does', () => {
      const rated = rateContest(() => initialSkill(WENG_LIN_DEFAULTS), [solo('a', -4), solo('b', -1), solo('c', -3), solo('d', -2)]);
      close(rated.get('a'), 20.963, 8.084);
      close(rated.get('b'), 27.795, 8.263);
      close(rated.get('c'), 24.689, 8.084);
      close(rated.get('d'), 26.553, 8.179);
    });
    it('should rate scores 37, 19, 37, 42 (a tie) as the README does', () => {
      const rated = rateContest(() => initialSkill(WENG_LIN_DEFAULTS), [solo('a', 37), solo('b', 19), solo('c', 37), solo('d', 42)]);
      close(rated.get('a'), 24.689, 8.179);
      close(rated.get('b'), 22.826, 8.179);
      close(rated.get('c'), 24.689, 8.179);
      close(rated.get('d'), 27.795, 8.263);
    });
  });

  describe('having partial-play weights', () => {
    const full = rateContest(() => initialSkill(WENG_LIN_DEFAULTS), [solo('a', 1), solo('b', 0)]);
    const start = initialSkill(WENG_LIN_DEFAULTS);
    it('should move a member of weight w by w of its full update, its variance interpolated', () => {
      const weighted = rateContest(() => start, [{ members: [{ entrant: 'a', weight: 0.3 }, { entrant: 'c', weight: 0.7 }], score: 1 }, solo('b', 0)]);
      const together = rateContest(() => start, [{ members: [{ entrant: 'a', weight: 1 }, { entrant: 'c', weight: 1 }], score: 1 }, solo('b', 0)]);
      const a = weighted.get('a')!;
      const a1 = together.get('a')!;
      expect(a.mu - start.mu).toBeCloseTo(0.3 * (a1.mu - start.mu), 12);
      expect(a.sigma ** 2).toBeCloseTo(0.7 * start.sigma ** 2 + 0.3 * a1.sigma ** 2, 10);
      expect(full.get('a')!.mu).toBeGreaterThan(start.mu);
    });
    it('should leave a member of weight 0 as it was', () => {
      const rated = rateContest(() => start, [{ members: [{ entrant: 'a', weight: 0 }, { entrant: 'c', weight: 1 }], score: 1 }, solo('b', 0)]);
      expect(rated.get('a')).toEqual(start);
    });
  });

  describe('having an entrant on both sides of a contest', () => {
    it('should cancel its own moves and rate the partners who differ', () => {
      const start = initialSkill(WENG_LIN_DEFAULTS);
      const pair = (x: string, y: string, score: number) => ({ members: [{ entrant: x, weight: 0.5 }, { entrant: y, weight: 0.5 }], score });
      const rated = rateContest(() => start, [pair('a', 'b', 1), pair('a', 'c', 0)]);
      expect(rated.get('a')!.mu).toBeCloseTo(start.mu, 12);
      expect(rated.get('b')!.mu).toBeGreaterThan(start.mu);
      expect(rated.get('c')!.mu).toBeLessThan(start.mu);
    });
  });

  describe('conservativeRating', () => {
    it('should be μ − 3σ', () => {
      expect(conservativeRating({ mu: 43.07, sigma: 2.42 })).toBeCloseTo(35.81, 10);
    });
  });

  describe('having a bad contest', () => {
    it('should refuse one side, a weight outside [0, 1] and an entrant twice on a side', () => {
      const start = () => initialSkill(WENG_LIN_DEFAULTS);
      expect(() => rateContest(start, [solo('a', 1)])).toThrow(/DATA_INVALID/);
      expect(() => rateContest(start, [{ members: [{ entrant: 'a', weight: 1.5 }], score: 1 }, solo('b', 0)])).toThrow(/DATA_INVALID/);
      expect(() => rateContest(start, [{ members: [{ entrant: 'a', weight: 1 }, { entrant: 'a', weight: 1 }], score: 1 }, solo('b', 0)])).toThrow(/DATA_INVALID/);
    });
  });
});
