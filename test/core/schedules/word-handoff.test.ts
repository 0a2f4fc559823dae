import { describe, expect, it } from 'vitest';
import { Rng, deriveSeed } from '../../../core/rng.ts';
import { wordHandoff } from '../../../core/schedules/word-handoff.ts';

const SENIOR = 0;
const JUNIOR = 1;
const WORD = 100;
const SUBWORD = 7;
const boundary = new Set([WORD, 101, 102]);

interface Params {
  p: number;
  K: number;
  seed: number;
}

/** The coins row `row` flips, in order: Bernoulli(p) draws from the RNG seeded by (seed, row). */
function coinsOf({ p, seed }: Params, row: number): () => number {
  const rng = new Rng(deriveSeed(seed, row));
  return () => (rng.bernoulli(p) ? SENIOR : JUNIOR);
}

/** Tandem RL Algorithm 1, lines 6 and 11–14, written out over a scripted token stream. */
function algorithm1(tokens: readonly number[], params: Params, row = 0): number[] {
  const draw = coinsOf(params, row);
  let author = draw();
  let span = 0;
  const authors: number[] = [];
  for (const token of tokens) {
    authors.push(author);
    if (boundary.has(token) || span >= params.K) {
      author = draw();
      span = 0;
    } else {
      span += 1;
    }
  }
  return authors;
}

/** Who the schedule says wrote each token of a scripted stream. */
function authorsOf(tokens: readonly number[], params: Params, row = 0): number[] {
  const schedule = wordHandoff(boundary, params);
  let author = schedule.first(row);
  return tokens.map((token) => {
    const wrote = author;
    author = schedule.next(row, token);
    return wrote;
  });
}

/** A token stream where about one token in `every` is word-initial. */
function scriptedStream(length: number, every: number, seed: number): number[] {
  const rng = new Rng(seed);
  return Array.from({ length }, () => (rng.int(every) === 0 ? WORD + rng.int(3) : SUBWORD + rng.int(50)));
}

const share = (authors: readonly number[], who: number) => authors.filter((a) => a === who).length / authors.length;

describe('wordHandoff', () => {
  describe('having any token stream', () => {
    it('should hand off exactly as Algorithm 1 does with the same coins', () => {
      for (const K of [0, 1, 3, 32]) {
        for (const row of [0, 5]) {
          const tokens = scriptedStream(600, 4, 11 + K);
          const params = { p: 0.5, K, seed: 1234 };
          expect(authorsOf(tokens, params, row)).toEqual(algorithm1(tokens, params, row));
        }
      }
    });
  });

  describe('having p = 1', () => {
    it('should give every token to the senior', () => {
      expect(new Set(authorsOf(scriptedStream(300, 3, 1), { p: 1, K: 2, seed: 9 }))).toEqual(new Set([SENIOR]));
    });
  });

  describe('having p = 0', () => {
    it('should give every token to the junior', () => {
      expect(new Set(authorsOf(scriptedStream(300, 3, 1), { p: 0, K: 2, seed: 9 }))).toEqual(new Set([JUNIOR]));
    });
  });

  describe('having K = 0', () => {
    it('should flip a fresh coin for every token, boundary or not', () => {
      const params = { p: 0.5, K: 0, seed: 42 };
      const tokens = scriptedStream(200, 5, 3);
      const coin = coinsOf(params, 0);
      expect(authorsOf(tokens, params)).toEqual(tokens.map(() => coin()));
    });
  });

  describe('having a long run of non-boundary tokens', () => {
    it('should keep each drawn author for K + 1 tokens, then redraw (the backstop)', () => {
      const params = { p: 0.5, K: 2, seed: 5 };
      const coin = coinsOf(params, 0);
      const blocks = Array.from({ length: 20 }, () => coin());
      const expected = blocks.flatMap((author) => [author, author, author]);
      expect(authorsOf(new Array(60).fill(SUBWORD), params)).toEqual(expected);
    });
  });

  describe('having a boundary token inside a span', () => {
    it('should redraw right after it and restart the span count', () => {
      const params = { p: 0.5, K: 3, seed: 8 };
      const coin = coinsOf(params, 0);
      const [first, second, third] = [coin(), coin(), coin()];
      const tokens = [SUBWORD, SUBWORD, WORD, SUBWORD, SUBWORD, SUBWORD, SUBWORD, SUBWORD];
      expect(authorsOf(tokens, params)).toEqual([first, first, first, second, second, second, second, third]);
    });
  });

  describe('having the same seed', () => {
    it('should replay identically, also after a row is restarted with first()', () => {
      const params = { p: 0.4, K: 4, seed: 77 };
      const tokens = scriptedStream(500, 4, 2);
      const schedule = wordHandoff(boundary, params);
      const run = () => {
        let author = schedule.first(3);
        return tokens.map((token) => {
          const wrote = author;
          author = schedule.next(3, token);
          return wrote;
        });
      };
      expect(run()).toEqual(run());
      expect(authorsOf(tokens, params, 3)).toEqual(authorsOf(tokens, params, 3));
    });

    it('should draw independent coins for different rows and seeds', () => {
      const tokens = new Array(200).fill(SUBWORD);
      const params = { p: 0.5, K: 0, seed: 77 };
      expect(authorsOf(tokens, params, 0)).not.toEqual(authorsOf(tokens, params, 1));
      expect(authorsOf(tokens, params, 0)).not.toEqual(authorsOf(tokens, { ...params, seed: 78 }, 0));
    });
  });

  describe('having many rows', () => {
    it('should give the senior a share of the tokens close to p', () => {
      for (const p of [0.2, 0.5, 0.8]) {
        const authors = Array.from({ length: 60 }, (_, row) => authorsOf(scriptedStream(400, 4, row), { p, K: 32, seed: 2024 }, row)).flat();
        expect(share(authors, SENIOR)).toBeCloseTo(p, 1);
      }
    });
  });

  describe('having custom senior and junior indices', () => {
    it('should author with those indices', () => {
      const schedule = wordHandoff(boundary, { p: 1, K: 0, seed: 1, senior: 2, junior: 0 });
      expect(schedule.first(0)).toBe(2);
      expect(schedule.next(0, WORD)).toBe(2);
      const juniorOnly = wordHandoff(boundary, { p: 0, K: 0, seed: 1, senior: 2, junior: 0 });
      expect(juniorOnly.first(0)).toBe(0);
    });
  });

  describe('having a boundary predicate instead of a set', () => {
    it('should redraw where the predicate holds', () => {
      const tokens = scriptedStream(400, 4, 6);
      const params = { p: 0.5, K: 8, seed: 3 };
      const predicate = wordHandoff((token) => boundary.has(token), params);
      let author = predicate.first(0);
      const authors = tokens.map((token) => {
        const wrote = author;
        author = predicate.next(0, token);
        return wrote;
      });
      expect(authors).toEqual(algorithm1(tokens, params));
    });
  });
});
