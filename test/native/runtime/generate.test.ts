import { afterAll, describe, expect, it, vi } from 'vitest';
import { Decoder } from '../../../native/runtime/decoder.ts';
import { generate } from '../../../native/runtime/generate.ts';
import { wordHandoff } from '../../../core/schedules/word-handoff.ts';
import { soloSchedule, type AuthorSchedule } from '../../../core/schedules/author-schedule.ts';
import { Session } from '../../../native/ort.ts';
import { Scorer } from '../../../native/runtime/scorer.ts';
import { randomModel } from '../../support/models.ts';

const sampling = { temperature: 1, topK: 0, topP: 1 };
const prompts = [[1, 2, 3], [4, 5], [6], [7, 8, 9, 10]];
const boundary = new Set(Array.from({ length: 64 }, (_, i) => i).filter((i) => i % 3 === 0));

describe('generate', () => {
  const opened: Array<{ release(): Promise<void> }> = [];
  afterAll(async () => Promise.all(opened.map((d) => d.release())));
  const pair = async () => {
    const decoder = await Decoder.create([randomModel({}, 1, 'senior').policy, randomModel({}, 2, 'junior').policy], { batch: 4, maxLen: 48, threads: 1 });
    opened.push(decoder);
    return decoder;
  };

  describe('having a long prompt whose row finishes at the cache while a short one writes on', () => {
    for (const batchSync of ['lazy', 'lockstep'] as const) {
      it(`should stop growing the finished row instead of overflowing its cache (${batchSync})`, async () => {
        const { policy } = randomModel({}, 3);
        const decoder = await Decoder.create([policy], { batch: 2, maxLen: 24, threads: 1, sync: batchSync });
        opened.push(decoder);
        const long = Array.from({ length: 20 }, (_, i) => 1 + (i % 7));
        // Row 0 has room for 4 tokens, row 1 for 16: the decoder steps 16 times, and row 0 must not take the last 12.
        const [first, second] = await generate(decoder, [long, [1, 2]], { maxNewTokens: 16, rowMaxNewTokens: [4, 16], sampling, seed: 3 });
        expect(first.tokens).toHaveLength(4);
        expect(first.finish).toBe('length');
        expect(second.tokens).toHaveLength(16);
      });
    }
  });

  describe('having the same seed and schedule twice', () => {
    it('should replay identical tokens and authorship', async () => {
      const decoder = await pair();
      const run = () => generate(decoder, prompts, { maxNewTokens: 30, sampling, seed: 5, schedule: wordHandoff(boundary, { p: 0.5, K: 4, seed: 8 }) });
      const [a, b] = [await run(), await run()];
      expect(a.map((r) => [r.tokens, r.authors])).toEqual(b.map((r) => [r.tokens, r.authors]));
      const other = await generate(decoder, prompts, { maxNewTokens: 30, sampling, seed: 6, schedule: wordHandoff(boundary, { p: 0.5, K: 4, seed: 8 }) });
      expect(other.map((r) => r.tokens)).not.toEqual(a.map((r) => r.tokens));
    });
  });

  describe('having a word-handoff schedule', () => {
    it('should mix both authors and record each token with its author', async () => {
      const decoder = await pair();
      const rollouts = await generate(decoder, prompts, { maxNewTokens: 40, sampling, seed: 5, schedule: wordHandoff(boundary, { p: 0.5, K: 4, seed: 8 }) });
      const authors = rollouts.flatMap((r) => r.authors);
      expect(authors.filter((a) => a === 0).length).toBeGreaterThan(20);
      expect(authors.filter((a) => a === 1).length).toBeGreaterThan(20);
      for (const r of rollouts) expect(r.authors.length).toBe(r.tokens.length);
    });
  });

  describe('having partner log-probabilities requested', () => {
    it("should record every policy's teacher-forced log-probability of each emitted token", async () => {
      const decoder = await pair();
      const rollouts = await generate(decoder, prompts, { maxNewTokens: 12, sampling, seed: 5, schedule: wordHandoff(boundary, { p: 0.5, K: 4, seed: 8 }), partnerLogprobs: true });
      for (const [m, policy] of decoder.policies.entries()) {
        const scorer = await Scorer.create(policy, { threads: 1 });
        opened.push(scorer);
        const scored = await scorer.score(rollouts.map((r) => [...r.prompt, ...r.tokens]));
        for (const [row, r] of rollouts.entries()) {
          const expected = scored[row].logprobs.slice(r.prompt.length) as number[];
          r.partnerLogprobs![m].forEach((lp, t) => expect(lp).toBeCloseTo(expected[t], 3));
          r.tokens.forEach((_, t) => r.authors[t] === m && expect(r.logprobs[t]).toBeCloseTo(expected[t], 3));
        }
      }
    });
  });

  describe('having a member whose cache update is deferred while it does not write', () => {
    const policies = [randomModel({}, 1, 'senior').policy, randomModel({}, 2, 'junior').policy];
    /** Each row's author changes after every token (row parity picks the first). */
    const everyToken = (): AuthorSchedule => {
      const last = new Map<number, number>();
      return {
        first: (row) => (last.set(row, row % 2), row % 2),
        next: (row) => (last.set(row, 1 - last.get(row)!), last.get(row)!),
      };
    };
    const schedules: Record<string, () => AuthorSchedule> = {
      'word handoff': () => wordHandoff(boundary, { p: 0.5, K: 4, seed: 8 }),
      'a handoff at every token': everyToken,
      'a member that never writes': () => soloSchedule(0),
    };
    for (const batch of [1, 4]) {
      for (const [name, schedule] of Object.entries(schedules)) {
        it(`should write the rollouts of every member reading every token, at B=${batch} with ${name}`, async () => {
          const rows = prompts.slice(0, batch);
          // partnerLogprobs asks every member for every row at every step: nothing is deferred.
          const run = async (sync: 'lazy' | 'lockstep', partnerLogprobs = false) => {
            const decoder = await Decoder.create(policies, { batch, maxLen: 48, threads: 1, sync });
            opened.push(decoder);
            const runs = vi.spyOn(Session.prototype, 'runWith');
            try {
              const rollouts = await generate(decoder, rows, { maxNewTokens: 30, sampling, seed: 5, schedule: schedule(), partnerLogprobs });
              return { rollouts, runs: runs.mock.calls.length };
            } finally {
              runs.mockRestore();
            }
          };
          const reference = await run('lockstep', true);
          expect(reference.runs).toBe(2 * 30);
          for (const sync of ['lazy', 'lockstep'] as const) {
            const deferred = await run(sync);
            expect(deferred.rollouts.map((r) => [r.tokens, r.authors])).toEqual(reference.rollouts.map((r) => [r.tokens, r.authors]));
            deferred.rollouts.forEach((r, row) => r.logprobs.forEach((lp, t) => expect(lp).toBeCloseTo(reference.rollouts[row].logprobs[t], 4)));
            // One run a step at B=1 (the author's: a member not writing owes nothing, lazy or lockstep), and a
            // member that never writes never runs, not even on the prompt.
            if (batch === 1 || name === 'a member that never writes') expect(deferred.runs).toBe(30);
          }
        });
      }
    }
  });

  describe('having stop tokens', () => {
    it('should end a row at its first stop token and let the others go on', async () => {
      const decoder = await pair();
      const stopTokens = Array.from({ length: 16 }, (_, i) => i * 4);
      const rollouts = await generate(decoder, prompts, { maxNewTokens: 30, sampling, seed: 2, stopTokens });
      for (const r of rollouts) {
        const at = r.tokens.findIndex((t) => stopTokens.includes(t));
        if (r.finish === 'stop') expect(at).toBe(r.tokens.length - 1);
        else expect(at).toBe(-1);
      }
      expect(rollouts.some((r) => r.finish === 'stop')).toBe(true);
    });
  });

  describe('having an aborted signal', () => {
    it('should stop and mark unfinished rows aborted', async () => {
      const decoder = await pair();
      const controller = new AbortController();
      const rollouts = await generate(decoder, prompts, {
        maxNewTokens: 30,
        sampling,
        seed: 2,
        signal: controller.signal,
        onStep: (step) => step === 4 && controller.abort(),
      });
      for (const r of rollouts) expect(r.tokens.length).toBeLessThanOrEqual(5);
      expect(rollouts.every((r) => r.finish === 'aborted' || r.finish === 'stop')).toBe(true);
    });
  });
});
