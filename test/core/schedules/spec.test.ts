import { describe, expect, it } from 'vitest';
import { wordHandoff } from '../../../core/schedules/word-handoff.ts';
import { boundaryHash, buildSchedule, parseScheduleSpec, scheduleHash, type ScheduleSpec } from '../../../core/schedules/spec.ts';
import { expectConfigInvalid } from '../../support/errors.ts';

const word: ScheduleSpec = { kind: 'word', p: 0.5, K: 32, seed: 7, boundary: [30, 10, 20] };

function authorsOver(spec: ScheduleSpec, tokens: readonly number[], row = 0): number[] {
  const schedule = buildSchedule(spec);
  let author = schedule.first(row);
  return tokens.map((token) => {
    const wrote = author;
    author = schedule.next(row, token);
    return wrote;
  });
}

describe('parseScheduleSpec', () => {
  describe('having a valid spec', () => {
    it('should return it unchanged', () => {
      expect(parseScheduleSpec(word)).toEqual(word);
      expect(parseScheduleSpec({ kind: 'solo' })).toEqual({ kind: 'solo' });
    });
  });

  describe('having an invalid spec', () => {
    it('should fail with CONFIG_INVALID naming the field', () => {
      const cases: [unknown, string][] = [
        [{ ...word, p: 1.5 }, 'p'],
        [{ ...word, K: -1 }, 'K'],
        [{ ...word, boundary: [1, -2] }, 'boundary.1'],
        [{ ...word, seed: 0.5 }, 'seed'],
        [{ kind: 'sentence' }, 'kind'],
        [{ kind: 'solo', author: 0, extra: 1 }, 'extra'],
      ];
      expectConfigInvalid(parseScheduleSpec, cases);
    });
  });
});

describe('buildSchedule', () => {
  describe('having a solo spec', () => {
    it('should give every token to its author (0 by default)', () => {
      expect(authorsOver({ kind: 'solo' }, [1, 2, 3])).toEqual([0, 0, 0]);
      expect(authorsOver({ kind: 'solo', author: 1 }, [1, 2, 3])).toEqual([1, 1, 1]);
    });
  });

  describe('having a word spec', () => {
    it('should schedule exactly as wordHandoff over the boundary set', () => {
      const tokens = Array.from({ length: 300 }, (_, t) => (t * 7919) % 40);
      const direct = wordHandoff(new Set(word.boundary), { p: 0.5, K: 32, seed: 7 });
      let author = direct.first(2);
      const expected = tokens.map((token) => {
        const wrote = author;
        author = direct.next(2, token);
        return wrote;
      });
      expect(authorsOver(word, tokens, 2)).toEqual(expected);
    });

    it('should build independent schedules, so one generation cannot disturb another', () => {
      const tokens = Array.from({ length: 100 }, (_, t) => t % 40);
      const first = buildSchedule({ ...word, K: 0 });
      first.first(0);
      first.next(0, 1);
      expect(authorsOver({ ...word, K: 0 }, tokens)).toEqual(authorsOver({ ...word, K: 0 }, tokens));
    });
  });
});

describe('scheduleHash', () => {
  describe('having the same schedule written differently', () => {
    it('should hash equal: boundary order, duplicates and spelled-out defaults do not matter', () => {
      const h = scheduleHash(word);
      expect(scheduleHash({ ...word, boundary: [20, 30, 10, 10] })).toBe(h);
      expect(scheduleHash({ ...word, senior: 0, junior: 1 })).toBe(h);
      expect(scheduleHash(JSON.parse(JSON.stringify(word)))).toBe(h);
      expect(scheduleHash(structuredClone(word))).toBe(h);
      expect(scheduleHash({ kind: 'solo' })).toBe(scheduleHash({ kind: 'solo', author: 0 }));
    });
  });

  describe('having schedules that differ in any field', () => {
    it('should hash differently', () => {
      const variants: ScheduleSpec[] = [
        word,
        { ...word, p: 0.25 },
        { ...word, K: 31 },
        { ...word, seed: 8 },
        { ...word, boundary: [10, 20] },
        { ...word, boundary: [10, 20, 31] },
        { ...word, senior: 1, junior: 0 },
        { kind: 'solo' },
        { kind: 'solo', author: 1 },
      ];
      expect(new Set(variants.map(scheduleHash)).size).toBe(variants.length);
    });
  });

  describe('having a recorded trajectory', () => {
    it('should stay the same across releases: 16 hex digits, pinned', () => {
      expect(scheduleHash(word)).toMatch(/^[0-9a-f]{16}$/);
      expect(scheduleHash(word)).toBe(PINNED_WORD_HASH);
      expect(boundaryHash([30, 10, 20])).toBe(PINNED_BOUNDARY_HASH);
    });
  });
});

describe('boundaryHash', () => {
  it('should depend only on the set', () => {
    expect(boundaryHash([3, 1, 2, 2])).toBe(boundaryHash([1, 2, 3]));
    expect(boundaryHash([1, 2, 3])).not.toBe(boundaryHash([1, 2, 4]));
    expect(boundaryHash([])).not.toBe(boundaryHash([0]));
  });

  it('should hash a full-vocabulary boundary set by its members, in any order', () => {
    const big = Array.from({ length: 150_000 }, (_, i) => 151_000 - i);
    expect(boundaryHash(big)).toBe(boundaryHash([...big].reverse()));
    expect(boundaryHash(big)).not.toBe(boundaryHash(big.slice(1)));
  });
});

const PINNED_WORD_HASH = '35056046f5248d05';
const PINNED_BOUNDARY_HASH = 'b844edb72878d6c6';
