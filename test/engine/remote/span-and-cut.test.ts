import { describe, expect, it } from 'vitest';
import { deriveSeed } from '../../../core/rng.ts';
import { buildSchedule, type ScheduleSpec } from '../../../core/schedules/spec.ts';
import type { SampleResult } from '../../../engine/remote/dialect.ts';
import { coWriteRow, type SpanSampler } from '../../../engine/remote/span-and-cut.ts';

/** A deterministic stand-in for a model: author a's next token after a prefix, over a vocabulary of 12 (11 ends a row). */
const STOP = 11;
const nextToken = (author: number, prefix: readonly number[]): number => deriveSeed(author, prefix.length, ...prefix.slice(-3)) % 12;
const logprobOf = (author: number, prefix: readonly number[]): number => -((deriveSeed(author + 7, ...prefix.slice(-2)) % 1000) / 100);

/** What the in-process decoder does with such models: one token at a time, the schedule consulted after each. */
function tokenByToken(spec: ScheduleSpec, prompt: number[], budget: number) {
  const schedule = buildSchedule(spec);
  const tokens: number[] = [];
  const authors: number[] = [];
  const logprobs: number[] = [];
  let author = schedule.first(0);
  while (tokens.length < budget) {
    const prefix = [...prompt, ...tokens];
    const token = nextToken(author, prefix);
    tokens.push(token);
    authors.push(author);
    logprobs.push(logprobOf(author, prefix));
    if (token === STOP) return { tokens, authors, logprobs, finish: 'stop' };
    author = schedule.next(0, token);
  }
  return { tokens, authors, logprobs, finish: 'length' };
}

/** A server that continues the prefix with the author's own tokens, stopping after a stop id as servers do. */
function server(stopIds: readonly number[], calls: { prefix: number[]; maxTokens: number; seed: number }[] = []): SpanSampler {
  return async (author, prefix, maxTokens, seed) => {
    calls.push({ prefix: [...prefix], maxTokens, seed });
    const tokens: number[] = [];
    const logprobs: number[] = [];
    let finish: SampleResult['finish'] = 'length';
    while (tokens.length < maxTokens) {
      const at = [...prefix, ...tokens];
      const token = nextToken(author, at);
      tokens.push(token);
      logprobs.push(logprobOf(author, at));
      if (token === STOP || stopIds.includes(token)) {
        finish = 'stop';
        break;
      }
    }
    return { tokens, logprobs, finish };
  };
}

const word: ScheduleSpec = { kind: 'word', p: 0.5, K: 3, seed: 41, boundary: [0, 1, 2, 3, 4] };
const step: ScheduleSpec = { kind: 'step', mode: 'bernoulli', p: 0.5, seed: 9, boundary: [5] };
const prompt = [7, 8, 9];

describe('span-and-cut co-writing', () => {
  describe.each([1, 2, 4, 7])('having a word-handoff schedule and spans of %i tokens', (spanTokens) => {
    it('should write exactly the row the token-by-token decoder writes, and count what it threw away', async () => {
      const reference = tokenByToken(word, prompt, 40);
      const written = await coWriteRow({
        row: 0,
        prompt,
        budget: 40,
        seed: 5,
        schedule: buildSchedule(word),
        spanTokens,
        handoffStops: new Set(),
        stopTokens: new Set([STOP]),
        sample: server([STOP]),
      });
      expect({ tokens: written.rollout.tokens, authors: written.rollout.authors, logprobs: written.rollout.logprobs, finish: written.rollout.finish }).toEqual(reference);
      expect(written.generated - written.rollout.tokens.length).toBeGreaterThanOrEqual(0);
      if (spanTokens === 1) expect(written.generated).toBe(written.rollout.tokens.length);
      expect(new Set(reference.authors).size).toBe(2);
    });
  });

  describe('having a step-handoff schedule whose step ends are stop ids', () => {
    it('should write the token-by-token row with no token wasted', async () => {
      const reference = tokenByToken(step, prompt, 40);
      const written = await coWriteRow({
        row: 0,
        prompt,
        budget: 40,
        seed: 5,
        schedule: buildSchedule(step),
        spanTokens: Number.POSITIVE_INFINITY,
        handoffStops: new Set([5]),
        stopTokens: new Set([STOP]),
        sample: server([STOP, 5]),
      });
      expect(written.rollout.tokens).toEqual(reference.tokens);
      expect(written.rollout.authors).toEqual(reference.authors);
      expect(written.generated).toBe(written.rollout.tokens.length);
    });
  });

  describe('having a solo schedule', () => {
    it('should send one request for the whole budget, seeded with the row seed, and the next spans from (seed, position)', async () => {
      const calls: { prefix: number[]; maxTokens: number; seed: number }[] = [];
      await coWriteRow({ row: 0, prompt, budget: 6, seed: 5, schedule: buildSchedule({ kind: 'solo' }), spanTokens: Infinity, handoffStops: new Set(), stopTokens: new Set(), sample: server([], calls) });
      expect(calls).toEqual([{ prefix: prompt, maxTokens: 6, seed: 5 }]);
      const spans: typeof calls = [];
      await coWriteRow({ row: 0, prompt, budget: 4, seed: 5, schedule: buildSchedule({ kind: 'solo' }), spanTokens: 2, handoffStops: new Set(), stopTokens: new Set(), sample: server([], spans) });
      expect(spans.map((call) => [call.prefix.length, call.seed])).toEqual([
        [3, 5],
        [5, deriveSeed(5, 2)],
      ]);
    });
  });

  describe('having a stop string met inside a span', () => {
    it('should end the row after the token that completes it, as generate() does', async () => {
      const reference = tokenByToken({ kind: 'solo' }, prompt, 30);
      const at = 4;
      const written = await coWriteRow({
        row: 0,
        prompt,
        budget: 30,
        seed: 5,
        schedule: buildSchedule({ kind: 'solo' }),
        spanTokens: Infinity,
        handoffStops: new Set(),
        stopTokens: new Set([STOP]),
        stopWhen: (_row, tokens) => tokens.length === at + 1,
        sample: server([STOP]),
      });
      expect(written.rollout.tokens).toEqual(reference.tokens.slice(0, at + 1));
      expect(written.rollout.finish).toBe('stop-sequence');
    });
  });

  describe('having a server that returns no token', () => {
    it('should fail with REMOTE_RESPONSE_INVALID', async () => {
      const error = await coWriteRow({
        row: 3,
        prompt,
        budget: 5,
        seed: 1,
        schedule: buildSchedule({ kind: 'solo' }),
        spanTokens: 5,
        handoffStops: new Set(),
        stopTokens: new Set(),
        sample: async () => ({ tokens: [], logprobs: [], finish: 'length' }),
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'REMOTE_RESPONSE_INVALID' });
    });
  });
});
