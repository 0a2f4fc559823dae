import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveModelDir } from '../../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../../plugins/policies/load-policy.ts';
import { Batcher, type SampleJob } from '../../../server/model-server/batcher.ts';

describe('Batcher', () => {
  let batcher: Batcher;

  beforeAll(async () => {
    const { policy, tokenizer } = await loadPolicy(resolveModelDir('default', 'arithmetic'));
    batcher = new Batcher(policy, { rows: 4, threads: 1, decode: (ids) => tokenizer!.decode(ids) });
  });

  afterAll(async () => {
    await batcher?.release();
  });

  const job = (overrides: Partial<SampleJob> = {}): SampleJob => ({
    prompt: [1, 2, 3],
    maxTokens: 6,
    sampling: { temperature: 1, topP: 1, topK: 0 },
    seed: 5,
    stopTokenIds: [],
    stopStrings: [],
    ignoreEos: true,
    promptLogprobs: false,
    ...overrides,
  });

  describe('having one row whose own code throws, batched with three good ones', () => {
    it('should fail that row alone and decode the others as they decode without it', async () => {
      const alone = await batcher.submit(job());
      const poisoned = job({
        onToken: () => {
          throw new RangeError('a row of its own making');
        },
      });
      const results = await Promise.allSettled([batcher.submit(job()), batcher.submit(poisoned), batcher.submit(job()), batcher.submit(job())]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(RangeError);
      for (const i of [0, 2, 3]) expect((results[i] as PromiseFulfilledResult<{ tokens: number[] }>).value.tokens).toEqual(alone.tokens);
    });
  });

  describe('having a job whose client went away while it waited', () => {
    it('should drop it from the queue and count it cancelled', async () => {
      const before = batcher.stats;
      const departed = new AbortController();
      const long = batcher.submit(job({ maxTokens: 200 }));
      const waiting = Array.from({ length: 4 }, () => batcher.submit(job({ signal: departed.signal })));
      departed.abort();
      await expect(Promise.all(waiting.map((p) => p.catch((error: Error) => error.message)))).resolves.toEqual(Array(4).fill(expect.stringContaining('went away')));
      await long;
      expect(batcher.stats.cancelled - before.cancelled).toBe(4);
      expect(batcher.stats.pending).toBe(0);
    });
  });
});
