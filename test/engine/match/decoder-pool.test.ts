import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DecoderPool } from '../../../engine/match/decoder-pool.ts';
import type { RolloutCall } from '../../../engine/match/runtime.ts';
import { PolicyPool } from '../../../engine/policies/policy-pool.ts';
import { parseLoraConfig } from '../../../native/model/lora-config.ts';

describe('DecoderPool with adapters over one base', () => {
  let pool: PolicyPool;
  const pools: DecoderPool[] = [];
  const open = (stackAdapters?: boolean) => {
    const decoders = new DecoderPool(pool, { rows: 6, maxLen: 96, threads: 1, ...(stackAdapters === undefined ? {} : { stackAdapters }) });
    pools.push(decoders);
    return decoders;
  };
  const adapter = (seed: number) => ({ ...parseLoraConfig({ r: 4, initStdB: 0.05 }), seed });

  beforeAll(async () => {
    pool = await PolicyPool.load(
      [
        { name: 'A', init: 'default', trainable: true, adapter: adapter(1) },
        { name: 'B', init: 'default', trainable: true, adapter: adapter(2) },
        { name: 'plain', init: 'default', trainable: false },
      ],
      { task: 'arithmetic' },
    );
  }, 120_000);
  afterAll(async () => Promise.all(pools.map((p) => p.release())));

  const call = (rowPolicies: number[]): RolloutCall => {
    const prompts = rowPolicies.map((_, row) => pool.tokenizer.encode(`${row + 3} + ${2 * row} =`));
    return {
      policies: ['A', 'B'],
      rowPolicies,
      prompts,
      maxNewTokens: 12,
      seed: 5,
      rowSeeds: prompts.map((_, row) => 100 + row),
      sampling: { temperature: 1, topK: 0, topP: 1 },
      stopTokens: [],
    };
  };

  it('gives adapters over one base one stack key and plain policies none, unless stacking is off', () => {
    const stacked = open();
    expect(stacked.stackKey('A')).toBeDefined();
    expect(stacked.stackKey('A')).toBe(stacked.stackKey('B'));
    expect(stacked.stackKey('plain')).toBeUndefined();
    expect(open(false).stackKey('A')).toBeUndefined();
  });

  it('decodes rows of two adapters in one call as each adapter does its own rows in a decoder of its own', async () => {
    const rowPolicies = [0, 1, 1, 0, 1];
    const mixed = await open().generate(call(rowPolicies));
    const apart = await open(false).generate(call(rowPolicies));
    expect(mixed.versions).toEqual([0, 0]);
    for (const [row, rollout] of mixed.rollouts.entries()) {
      expect(rollout.tokens).toEqual(apart.rollouts[row].tokens);
      expect(rollout.authors.every((a) => a === rowPolicies[row])).toBe(true);
      rollout.logprobs.forEach((logprob, t) => expect(logprob).toBeCloseTo(apart.rollouts[row].logprobs[t], 3));
    }
    // The adapters differ on these rows: B's rows decoded by A come out otherwise.
    const allA = await open(false).generate(call(rowPolicies.map(() => 0)));
    expect([1, 2, 4].some((row) => allA.rollouts[row].tokens.join() !== mixed.rollouts[row].tokens.join())).toBe(true);
  });

  it('picks up an adapter changed by an optimizer step (bumped version) in the stacked decoder', async () => {
    const stacked = open();
    const before = await stacked.generate(call([1, 1, 1]));
    for (const [name, t] of pool.policy('B').weights) if (name.includes('.lora_B.')) for (let i = 0; i < t.data.length; i++) t.data[i] += 0.05 * Math.sin(i);
    pool.bump('B');
    const after = await stacked.generate(call([1, 1, 1]));
    const fresh = await open(false).generate(call([1, 1, 1]));
    expect(after.versions).toEqual([0, 1]);
    for (const [row, rollout] of after.rollouts.entries()) expect(rollout.tokens).toEqual(fresh.rollouts[row].tokens);
    expect(after.rollouts.some((r, row) => r.tokens.join() !== before.rollouts[row].tokens.join())).toBe(true);
  });

  it('co-decodes an adapter senior with the base as its junior in one stacked run per token, as one member per policy does', async () => {
    const prompts = [0, 1, 2, 3, 4].map((row) => pool.tokenizer.encode(`${row + 3} * ${row + 1} =`));
    // K = 2 with no boundary tokens: the author is redrawn every two tokens, so authors switch within rows and differ across them.
    const coCall: RolloutCall = {
      policies: ['A', 'plain'],
      prompts,
      maxNewTokens: 16,
      seed: 9,
      sampling: { temperature: 1, topK: 0, topP: 1 },
      stopTokens: [],
      schedule: { kind: 'word', p: 0.5, K: 2, seed: 3, boundary: [] },
      partnerLogprobs: true,
    };
    const [stacked, apart] = [open(), open(false)];
    expect(stacked.coStackable(['A', 'plain'])).toBe(true);
    expect(apart.coStackable(['A', 'plain'])).toBe(false);
    const got = await stacked.generate(coCall);
    const want = await apart.generate(coCall);
    const steps = Math.max(...got.rollouts.map((r) => r.tokens.length));
    expect(stacked.sessionRuns).toBe(steps);
    expect(apart.sessionRuns).toBe(2 * steps);
    for (const [row, rollout] of got.rollouts.entries()) {
      const other = want.rollouts[row];
      expect(rollout.tokens).toEqual(other.tokens);
      expect(rollout.authors).toEqual(other.authors);
      rollout.logprobs.forEach((logprob, t) => expect(logprob).toBeCloseTo(other.logprobs[t], 3));
      for (const m of [0, 1]) rollout.partnerLogprobs![m].forEach((logprob, t) => expect(logprob).toBeCloseTo(other.partnerLogprobs![m][t], 3));
    }
    expect(got.rollouts.some((r) => new Set(r.authors).size === 2)).toBe(true);
    expect(new Set(got.rollouts.map((r) => r.authors[0])).size).toBe(2);
  });
});
