import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { CoDecoding, type ScheduleContext } from '../../../core/protocols/co-decoding.ts';
import type { AuthorSchedule } from '../../../core/schedules/author-schedule.ts';
import { buildSchedule } from '../../../core/schedules/spec.ts';

const context: ScheduleContext = { seed: 99, wordBoundary: [10, 11, 12], stepBoundary: [20] };

function authorsOver(schedule: AuthorSchedule, tokens: readonly number[]): number[] {
  let author = schedule.first(0);
  return tokens.map((token) => {
    const wrote = author;
    author = schedule.next(0, token);
    return wrote;
  });
}

describe('CoDecoding.wordHandoff', () => {
  describe('having only the roles', () => {
    it('should schedule with the tandem paper\'s p = 0.5 and K = 32 over the match seed and word boundaries', () => {
      const protocol = CoDecoding.wordHandoff({ senior: 'senior', junior: 'junior' });
      expect(protocol.family).toBe('co-decoding');
      expect(protocol.authors).toEqual(['senior', 'junior']);
      expect(protocol.schedule(context)).toEqual({ kind: 'word', p: 0.5, K: 32, seed: 99, boundary: [10, 11, 12] });
    });
  });

  describe('having p and K', () => {
    it('should carry them into the spec', () => {
      expect(CoDecoding.wordHandoff({ senior: 'a', junior: 'b', p: 0.7, K: 8 }).schedule(context)).toMatchObject({ p: 0.7, K: 8 });
    });
  });
});

describe('CoDecoding.stepHandoff', () => {
  describe('having a first role', () => {
    it('should name it by its author index and hand off at the step boundaries', () => {
      const protocol = CoDecoding.stepHandoff({ authors: ['senior', 'junior'], mode: 'alternate', first: 'junior' });
      const spec = protocol.schedule(context);
      expect(spec).toEqual({ kind: 'step', mode: 'alternate', p: 0.5, seed: 99, boundary: [20], first: 1 });
      expect(authorsOver(buildSchedule(spec), [1, 2, 20, 3, 20, 4])).toEqual([1, 1, 1, 0, 0, 1]);
    });
  });

  describe('having no first role', () => {
    it('should leave the first author to the Bernoulli draw', () => {
      const spec = CoDecoding.stepHandoff({ authors: ['senior', 'junior'], mode: 'bernoulli', p: 0.3 }).schedule(context);
      expect(spec).toEqual({ kind: 'step', mode: 'bernoulli', p: 0.3, seed: 99, boundary: [20] });
    });
  });

  describe('having a first role that is not an author', () => {
    it('should fail with CONFIG_INVALID', () => {
      const make = () => CoDecoding.stepHandoff({ authors: ['senior', 'junior'], mode: 'alternate', first: 'referee' as 'senior' });
      expect(make).toThrow(LudusError);
      expect(make).toThrow(/CONFIG_INVALID.*referee/);
    });
  });
});

describe('CoDecoding.solo', () => {
  it('should let the one role write every token', () => {
    const protocol = CoDecoding.solo('generator');
    expect(protocol.authors).toEqual(['generator']);
    expect(authorsOver(buildSchedule(protocol.schedule(context)), [1, 20, 10])).toEqual([0, 0, 0]);
  });
});
