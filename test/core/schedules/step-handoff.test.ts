import { describe, expect, it } from 'vitest';
import { Rng, deriveSeed } from '../../../core/rng.ts';
import type { AuthorSchedule } from '../../../core/schedules/author-schedule.ts';
import { buildSchedule, parseScheduleSpec, scheduleHash, type ScheduleSpec } from '../../../core/schedules/spec.ts';
import { stepHandoff, type StepHandoffParams } from '../../../core/schedules/step-handoff.ts';
import { expectConfigInvalid } from '../../support/errors.ts';

const STEP_END = 271; // a token whose text contains "\n\n"
const WORD = 5;
const stepBoundary = new Set([STEP_END, 272]);

function authorsOver(schedule: AuthorSchedule, tokens: readonly number[], row = 0): number[] {
  let author = schedule.first(row);
  return tokens.map((token) => {
    const wrote = author;
    author = schedule.next(row, token);
    return wrote;
  });
}

/** The coins row `row` flips, in order: Bernoulli(p) for author 0, from the RNG seeded by (seed, row). */
function coinsOf(seed: number, p: number, row: number): () => number {
  const rng = new Rng(deriveSeed(seed, row));
  return () => (rng.bernoulli(p) ? 0 : 1);
}

/** Appendix B.3 written out: a fresh Bernoulli(p) author after every step end, the first one drawn too. */
function bernoulliReference(tokens: readonly number[], seed: number, p: number, row: number): number[] {
  const coin = coinsOf(seed, p, row);
  let author = coin();
  return tokens.map((token) => {
    const wrote = author;
    if (stepBoundary.has(token)) author = coin();
    return wrote;
  });
}

/** `steps` reasoning steps of `length` word tokens, each closed by a step end. */
function steps(count: number, length: number): number[] {
  return Array.from({ length: count }, () => [...new Array(length - 1).fill(WORD), STEP_END]).flat();
}

describe('stepHandoff', () => {
  describe('having mode alternate and a fixed first author', () => {
    it('should hand off strictly round-robin right after each step end', () => {
      const tokens = [WORD, WORD, STEP_END, WORD, STEP_END, WORD, WORD, 272, WORD];
      const params: StepHandoffParams = { mode: 'alternate', seed: 1, first: 0 };
      expect(authorsOver(stepHandoff(stepBoundary, params), tokens)).toEqual([0, 0, 0, 1, 1, 0, 0, 0, 1]);
      expect(authorsOver(stepHandoff(stepBoundary, { ...params, first: 1 }), tokens)).toEqual([1, 1, 1, 0, 0, 1, 1, 1, 0]);
    });

    it('should keep one author over a response with no step end', () => {
      expect(new Set(authorsOver(stepHandoff(stepBoundary, { mode: 'alternate', seed: 1, first: 1 }), new Array(50).fill(WORD))).size).toBe(1);
    });
  });

  describe('having mode alternate and no first author', () => {
    it('should draw the first author by the row\'s first coin, then alternate', () => {
      for (const row of [0, 1, 2, 3, 4, 5]) {
        const first = coinsOf(9, 0.5, row)();
        const authors = authorsOver(stepHandoff(stepBoundary, { mode: 'alternate', seed: 9 }), steps(4, 3), row);
        expect(authors).toEqual([first, first, first, 1 - first, 1 - first, 1 - first, first, first, first, 1 - first, 1 - first, 1 - first]);
      }
    });

    it('should draw author 0 first in about a p share of the rows', () => {
      for (const p of [0.2, 0.5, 0.9]) {
        const schedule = stepHandoff(stepBoundary, { mode: 'alternate', seed: 31, p });
        const firsts = Array.from({ length: 2000 }, (_, row) => schedule.first(row));
        expect(firsts.filter((author) => author === 0).length / firsts.length).toBeCloseTo(p, 1);
      }
    });
  });

  describe('having mode bernoulli', () => {
    it('should redraw exactly as appendix B.3 does with the same coins, only at step ends', () => {
      const rng = new Rng(3);
      const tokens = Array.from({ length: 400 }, () => (rng.int(6) === 0 ? STEP_END : WORD));
      for (const row of [0, 7]) {
        for (const p of [0.3, 0.5]) {
          expect(authorsOver(stepHandoff(stepBoundary, { mode: 'bernoulli', seed: 77, p }), tokens, row)).toEqual(bernoulliReference(tokens, 77, p, row));
        }
      }
    });

    it('should give author 0 every token when p = 1 and author 1 every token when p = 0', () => {
      expect(new Set(authorsOver(stepHandoff(stepBoundary, { mode: 'bernoulli', seed: 2, p: 1 }), steps(10, 4)))).toEqual(new Set([0]));
      expect(new Set(authorsOver(stepHandoff(stepBoundary, { mode: 'bernoulli', seed: 2, p: 0 }), steps(10, 4)))).toEqual(new Set([1]));
    });

    it('should start with the fixed first author when one is given, and draw from the first step end on', () => {
      const coin = coinsOf(4, 0.5, 0);
      const redraws = [coin(), coin()];
      const authors = authorsOver(stepHandoff(stepBoundary, { mode: 'bernoulli', seed: 4, first: 1 }), steps(3, 2));
      expect(authors).toEqual([1, 1, redraws[0], redraws[0], redraws[1], redraws[1]]);
    });

    it('should give author 0 a share of the tokens close to p over many rows (the paper\'s 50% at p = 0.5)', () => {
      const schedule = stepHandoff(stepBoundary, { mode: 'bernoulli', seed: 2024 });
      const authors = Array.from({ length: 300 }, (_, row) => authorsOver(schedule, steps(8, 5), row)).flat();
      expect(authors.filter((author) => author === 0).length / authors.length).toBeCloseTo(0.5, 1);
    });
  });

  describe('having the same seed and row', () => {
    it('should replay identically, also after a row is restarted with first()', () => {
      const schedule = stepHandoff(stepBoundary, { mode: 'bernoulli', seed: 12 });
      const tokens = steps(30, 3);
      expect(authorsOver(schedule, tokens, 4)).toEqual(authorsOver(schedule, tokens, 4));
      expect(authorsOver(schedule, tokens, 4)).not.toEqual(authorsOver(schedule, tokens, 5));
      expect(authorsOver(schedule, tokens, 4)).not.toEqual(authorsOver(stepHandoff(stepBoundary, { mode: 'bernoulli', seed: 13 }), tokens, 4));
    });
  });

  describe('having a boundary predicate instead of a set', () => {
    it('should hand off where the predicate holds', () => {
      const tokens = steps(6, 3);
      const byPredicate = stepHandoff((token) => stepBoundary.has(token), { mode: 'bernoulli', seed: 8 });
      expect(authorsOver(byPredicate, tokens)).toEqual(authorsOver(stepHandoff(stepBoundary, { mode: 'bernoulli', seed: 8 }), tokens));
    });
  });
});

describe('ScheduleSpec of kind step', () => {
  const alternate: ScheduleSpec = { kind: 'step', mode: 'alternate', seed: 5, boundary: [272, STEP_END] };

  describe('having a valid spec', () => {
    it('should parse unchanged and build the step handoff it names', () => {
      expect(parseScheduleSpec(alternate)).toEqual(alternate);
      const tokens = steps(20, 3);
      for (const spec of [alternate, { ...alternate, mode: 'bernoulli', p: 0.3, first: 1 } as const]) {
        const direct = stepHandoff(stepBoundary, { mode: spec.mode, seed: spec.seed, p: spec.p, first: spec.first });
        expect(authorsOver(buildSchedule(spec), tokens, 3)).toEqual(authorsOver(direct, tokens, 3));
      }
    });
  });

  describe('having an invalid spec', () => {
    it('should fail with CONFIG_INVALID naming the field', () => {
      const cases: [unknown, string][] = [
        [{ kind: 'step', seed: 1, boundary: [] }, 'mode'],
        [{ ...alternate, mode: 'sometimes' }, 'mode'],
        [{ ...alternate, p: -0.1 }, 'p'],
        [{ ...alternate, first: 2 }, 'first'],
        [{ ...alternate, boundary: [0.5] }, 'boundary.0'],
        [{ ...alternate, K: 32 }, 'K'],
      ];
      expectConfigInvalid(parseScheduleSpec, cases);
    });
  });

  describe('scheduleHash', () => {
    it('should hash equal when only the writing differs: boundary order, duplicates, p spelled out as 0.5', () => {
      const h = scheduleHash(alternate);
      expect(scheduleHash({ ...alternate, boundary: [STEP_END, 272, 272] })).toBe(h);
      expect(scheduleHash({ ...alternate, p: 0.5 })).toBe(h);
    });

    it('should stay the same across releases, so recorded trajectories keep matching', () => {
      expect(scheduleHash(alternate)).toBe(PINNED_STEP_HASH);
    });

    it('should hash differently when any field differs, and apart from word and solo specs', () => {
      const variants: ScheduleSpec[] = [
        alternate,
        { ...alternate, mode: 'bernoulli' },
        { ...alternate, p: 0.25 },
        { ...alternate, seed: 6 },
        { ...alternate, first: 0 },
        { ...alternate, first: 1 },
        { ...alternate, boundary: [STEP_END] },
        { kind: 'word', p: 0.5, K: 32, seed: 5, boundary: [272, STEP_END] },
        { kind: 'solo' },
      ];
      expect(new Set(variants.map(scheduleHash)).size).toBe(variants.length);
    });
  });
});

const PINNED_STEP_HASH = '240cb4fe7a7e9c9d';
