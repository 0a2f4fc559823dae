import { describe, expect, it } from 'vitest';
import { fitBradleyTerry } from '../../../core/tournament/bradley-terry.ts';

describe('fitBradleyTerry', () => {
  describe('having two entrants, one winning 3 of 4', () => {
    const fit = fitBradleyTerry([
      [0, 3],
      [1, 0],
    ]);
    it('should put the log-odds ln 3 between them, centred', () => {
      expect(fit.theta[0]).toBeCloseTo(Math.log(3) / 2, 9);
      expect(fit.theta[1]).toBeCloseTo(-Math.log(3) / 2, 9);
    });
    it('should give each strength half the SE of the difference, 1/√(n·p·(1 − p)) = √(4/3)', () => {
      expect(fit.se[0]).toBeCloseTo(Math.sqrt(4 / 3) / 2, 9);
      expect(fit.se[1]).toBeCloseTo(Math.sqrt(4 / 3) / 2, 9);
      expect(fit.covariance[0][1]).toBeCloseTo(-1 / 3, 9);
    });
  });

  describe('having three entrants in a cycle, each beating the next 2–1', () => {
    const fit = fitBradleyTerry([
      [0, 2, 1],
      [1, 0, 2],
      [2, 1, 0],
    ]);
    it('should rate them equal', () => {
      for (const theta of fit.theta) expect(theta).toBeCloseTo(0, 9);
    });
    it('should give each the SE of the centred inverse of the information 0.75·(3I − J): √((2/3)/2.25)', () => {
      for (const se of fit.se) expect(se).toBeCloseTo(Math.sqrt(2 / 3 / 2.25), 9);
    });
  });

  describe('having an entrant that won every game', () => {
    it('should stay finite with a ridge, at the root of 2(1 − σ(2t)) = λt', () => {
      const fit = fitBradleyTerry(
        [
          [0, 2],
          [0, 0],
        ],
        { ridge: 1 },
      );
      let [lo, hi] = [0, 2];
      for (let i = 0; i < 60; i++) {
        const t = (lo + hi) / 2;
        if (2 * (1 - 1 / (1 + Math.exp(-2 * t))) > t) lo = t;
        else hi = t;
      }
      expect(fit.theta[0]).toBeCloseTo(lo, 8);
      expect(fit.theta[1]).toBeCloseTo(-lo, 8);
    });
    it('should refuse a table in pieces without a ridge', () => {
      const pieces = [
        [0, 1, 0],
        [1, 0, 0],
        [0, 0, 0],
      ];
      expect(() => fitBradleyTerry(pieces)).toThrow(/\[DATA_INVALID\].*ridge/);
    });
  });

  describe('having the same games in any order', () => {
    it('should give the same fit (a batch fit has no order)', () => {
      const table = [
        [0, 3, 1, 2],
        [1, 0, 2, 2],
        [2, 1, 0, 1],
        [0, 1, 3, 0],
      ];
      const permutation = [2, 0, 3, 1];
      const permuted = permutation.map((i) => permutation.map((j) => table[i][j]));
      const a = fitBradleyTerry(table);
      const b = fitBradleyTerry(permuted);
      permutation.forEach((original, k) => {
        expect(b.theta[k]).toBeCloseTo(a.theta[original], 9);
        expect(b.se[k]).toBeCloseTo(a.se[original], 9);
      });
      expect(a.theta.reduce((s, t) => s + t, 0)).toBeCloseTo(0, 12);
    });
  });
});
