import { describe, expect, it, vi } from 'vitest';
import { Decoder, PREFILL_PIECE, type Distributions } from '../../../native/runtime/decoder.ts';
import { LudusError } from '../../../core/errors.ts';
import { randomModel, VARIANTS } from '../../support/models.ts';
import { logSoftmax, referenceLogits } from '../../support/reference-model.ts';
import { decoderOpener } from '../../support/decoders.ts';
import { weightsBytes } from '../../../native/model/weights.ts';

/** Largest gap between the decoder's log-probabilities for (policy, row) and the reference's. */
function logprobGap(dist: Distributions, policy: number, row: number, referenceRow: number[]): number {
  const probs = dist.of(policy, row)!;
  const expected = logSoftmax(referenceRow);
  let gap = 0;
  for (let i = 0; i < expected.length; i++) gap = Math.max(gap, Math.abs(Math.log(probs[i]) - expected[i]));
  return gap;
}

describe('Decoder', () => {
  const open = decoderOpener();

  // The GPU paths as a GPU opens them (weights baked in, the GPU op set; under WebGPU the caches resident on the
  // device), run here by the CPU provider.
  const paths = { cpu: {}, cuda: { opSet: 'gpu', weights: 'initializers' }, webgpu: { opSet: 'gpu', weights: 'initializers', cache: 'resident' } } as const;
  for (const [variant, overrides] of Object.entries(VARIANTS)) for (const [path, options] of Object.entries(paths)) {
    describe(`having a ${variant} model, ragged prompts and the ${path} path`, () => {
      it('should match the reference forward pass at every prefill and decode position', async () => {
        const { config, weights, policy } = randomModel(overrides);
        const decoder = await open([policy], { batch: 3, maxLen: 16, threads: 1, ...options });
        const sequences = [
          [1, 5, 9, 13, 2, 7, 40, 3],
          [4, 8, 15, 16, 23, 42, 11, 9],
          [60, 61, 62, 63, 0, 1, 2, 3],
        ];
        const promptLengths = [3, 5, 1];
        let probs = await decoder.prefill(sequences.map((s, r) => s.slice(0, promptLengths[r])));
        for (let step = 0; ; step++) {
          for (let row = 0; row < 3; row++) {
            const position = promptLengths[row] + step - 1;
            const reference = referenceLogits(config, weights, sequences[row].slice(0, position + 1))[position];
            expect(logprobGap(probs, 0, row, reference)).toBeLessThan(2e-4);
          }
          if (step === 3) break;
          probs = await decoder.step(sequences.map((s, r) => s[promptLengths[r] + step]));
        }
        expect(Array.from(decoder.lengths)).toEqual(promptLengths.map((l) => l + 3));
      });
    });
  }

  describe('having prompts longer than a prefill piece', () => {
    it('should read them in pieces and give every row the distribution the whole prompt gives, then decode on from it', async () => {
      const { config, weights, policy } = randomModel({ max_position_embeddings: 512 });
      const decoder = await open([policy], { batch: 2, maxLen: 2 * PREFILL_PIECE + 60, threads: 1 });
      const lengths = [2 * PREFILL_PIECE + 50, PREFILL_PIECE + 7];
      const sequences = lengths.map((n, r) => Array.from({ length: n + 1 }, (_, i) => (i * (5 + r) + 3 * r + 1) % config.vocabSize));
      const append = vi.spyOn(decoder, 'append');
      const probs = await decoder.prefill(sequences.map((s, r) => s.slice(0, lengths[r])));
      const pieces = append.mock.calls.map(([chunks]) => chunks.map((c) => c.length));
      append.mockRestore();
      expect(pieces).toHaveLength(3);
      pieces.forEach((piece) => piece.forEach((n) => expect(n).toBeLessThanOrEqual(PREFILL_PIECE)));
      expect(pieces.reduce((sum, piece) => sum.map((n, r) => n + piece[r]), [0, 0])).toEqual(lengths);
      const next = await decoder.step(sequences.map((s, r) => s[lengths[r]]));
      sequences.forEach((sequence, r) => {
        const logits = referenceLogits(config, weights, sequence);
        expect(logprobGap(probs, 0, r, logits[lengths[r] - 1])).toBeLessThan(2e-4);
        expect(logprobGap(next, 0, r, logits[lengths[r]])).toBeLessThan(2e-4);
      });
    });
  });

  for (const cache of ['host', 'resident'] as const) describe(`having rows that append chunks of different lengths (${cache} caches)`, () => {
    it('should continue each row exactly as if its tokens had come one at a time', async () => {
      const { config, weights, policy } = randomModel();
      const decoder = await open([policy], { batch: 2, maxLen: 16, threads: 1, cache });
      const rows = [
        [7, 3, 9, 1, 12, 30, 2],
        [5, 6, 44, 8, 19, 21, 50],
      ];
      await decoder.prefill([rows[0].slice(0, 2), rows[1].slice(0, 4)]);
      const probs = await decoder.append([rows[0].slice(2, 6), rows[1].slice(4, 5)]);
      expect(logprobGap(probs, 0, 0, referenceLogits(config, weights, rows[0].slice(0, 6))[5])).toBeLessThan(2e-4);
      expect(logprobGap(probs, 0, 1, referenceLogits(config, weights, rows[1].slice(0, 5))[4])).toBeLessThan(2e-4);
      const next = await decoder.step([rows[0][6], rows[1][5]]);
      expect(logprobGap(next, 0, 0, referenceLogits(config, weights, rows[0])[6])).toBeLessThan(2e-4);
      expect(logprobGap(next, 0, 1, referenceLogits(config, weights, rows[1].slice(0, 6))[5])).toBeLessThan(2e-4);
    });
  });

  describe('choosing whether its sessions spin', () => {
    it('should let a lone member spin while idle and stop the alternating members of a tandem spinning when their run ends', async () => {
      const { Session } = await import('../../../native/ort.ts');
      const created = vi.spyOn(Session, 'create');
      try {
        const solo = await open([randomModel({}, 7).policy], { batch: 1, maxLen: 8, threads: 1 });
        const tandem = await open([randomModel({}, 8).policy, randomModel({}, 9).policy], { batch: 1, maxLen: 8, threads: 1 });
        const spinning = created.mock.calls.map(([, options]) => [options?.label, options?.spinning]);
        // Two different weights baked in: the tandem opens a session per member, neither spinning.
        expect(spinning).toEqual([
          ['decode(micro)', 'idle'],
          ['decode(micro)', 'within-run'],
          ['decode(micro)', 'within-run'],
        ]);
        await solo.release();
        await tandem.release();
      } finally {
        created.mockRestore();
      }
    });
  });

  describe('having resident caches', () => {
    it('should feed each run the caches the previous run returned, holding none in host memory', async () => {
      const { Session } = await import('../../../native/ort.ts');
      const { policy } = randomModel();
      const decoder = await open([policy], { batch: 2, maxLen: 16, threads: 1, cache: 'resident' });
      const runs = vi.spyOn(Session.prototype, 'runWith');
      try {
        await decoder.prefill([[1, 2, 3], [4]]);
        const first = await runs.mock.results[0].value;
        await decoder.step([5, 6]);
        const fed = runs.mock.calls[1][1];
        expect(Object.keys(fed)).toHaveLength(2 * policy.config.numLayers);
        expect(fed.past_key_0).toBe(first.resident.present_key_0);
        expect(fed.past_key_0.dims[2]).toBe(1 + 3);
        expect(decoder.cacheBytes).toBe(0);
      } finally {
        runs.mockRestore();
      }
    });
  });

  describe('having rows that outgrow the initial cache capacity', () => {
    for (const cache of ['host', 'resident'] as const) it(`should keep every cached position when the caches grow (${cache})`, async () => {
      const { config, weights, policy } = randomModel();
      const decoder = await open([policy], { batch: 2, maxLen: 80, threads: 1, cache });
      const sequence = Array.from({ length: 70 }, (_, i) => (i * 37 + 11) % config.vocabSize);
      await decoder.prefill([sequence.slice(0, 30), sequence.slice(0, 5)]);
      let probs: Distributions | undefined;
      for (let t = 0; t < 36; t++) probs = await decoder.step([sequence[30 + t], sequence[5 + t]]);
      const V = config.vocabSize;
      expect(logprobGap(probs!, 0, 0, referenceLogits(config, weights, sequence.slice(0, 66))[65])).toBeLessThan(3e-4);
      expect(logprobGap(probs!, 0, 1, referenceLogits(config, weights, sequence.slice(0, 41))[40])).toBeLessThan(3e-4);
    });

    it('should reuse the same buffers across repeated rollouts', async () => {
      const { policy } = randomModel();
      const decoder = await open([policy], { batch: 2, maxLen: 128, threads: 1 });
      const rollout = async () => {
        await decoder.prefill([[1, 2, 3], [4]]);
        for (let t = 0; t < 100; t++) await decoder.step([5, 6]);
      };
      await rollout();
      const bytes = decoder.cacheBytes;
      await rollout();
      await rollout();
      expect(decoder.cacheBytes).toBe(bytes);
    });
  });

  for (const sync of ['lockstep', 'lazy'] as const) for (const cache of ['host', 'resident'] as const) describe(`having two policies kept in sync ${sync} (${cache} caches)`, () => {
    it('should give each policy the distribution it would give alone, from one shared token stream', async () => {
      const a = randomModel({}, 1, 'senior');
      const b = randomModel({}, 2, 'junior');
      const pair = await open([a.policy, b.policy], { batch: 2, maxLen: 8, threads: 1, sync, cache });
      const seq = [3, 1, 4, 1, 5, 9];
      await pair.prefill([seq.slice(0, 2), seq.slice(0, 3)]);
      const probs = await pair.step([seq[2], seq[3]]);
      expect(logprobGap(probs, 0, 0, referenceLogits(a.config, a.weights, seq.slice(0, 3))[2])).toBeLessThan(2e-4);
      expect(logprobGap(probs, 1, 1, referenceLogits(b.config, b.weights, seq.slice(0, 4))[3])).toBeLessThan(2e-4);
    });
  });

  for (const sync of ['lockstep', 'lazy'] as const) describe(`having a route that names one author per row (${sync})`, () => {
    it('should compute only the routed distributions, each equal to the unrouted one', async () => {
      const a = randomModel({}, 1, 'senior');
      const b = randomModel({}, 2, 'junior');
      const pair = await open([a.policy, b.policy], { batch: 3, maxLen: 8, threads: 1, sync });
      const prompts = [[3, 1], [4, 1, 5], [9]];
      const full = await pair.prefill(prompts);
      const fullRows = [full.of(0, 0)!.slice(), full.of(1, 1)!.slice()];
      const routed = await pair.prefill(prompts, Int32Array.from([0, 1, -1]));
      expect(routed.of(1, 0)).toBeNull();
      expect(routed.of(0, 1)).toBeNull();
      expect(routed.of(0, 2)).toBeNull();
      expect(routed.of(1, 2)).toBeNull();
      expect(Array.from(routed.of(0, 0)!)).toEqual(Array.from(fullRows[0]));
      expect(Array.from(routed.of(1, 1)!)).toEqual(Array.from(fullRows[1]));
    });
  });

  describe('having a lazy pair whose authors alternate', () => {
    it("should give each author the distribution of the whole shared sequence after catching up on its partner's tokens", async () => {
      const a = randomModel({}, 1, 'senior');
      const b = randomModel({}, 2, 'junior');
      const lazy = await open([a.policy, b.policy], { batch: 1, maxLen: 16, threads: 1, sync: 'lazy' });
      const seq = [5, 9, 2, 33, 7, 18, 40, 3];
      const authors = [0, 0, 1, 1, 1, 0, 1];
      let dist = await lazy.prefill([seq.slice(0, 1)], Int32Array.of(authors[0]));
      for (let t = 1; t < seq.length; t++) {
        const who = authors[t - 1];
        const model = who === 0 ? a : b;
        expect(logprobGap(dist, who, 0, referenceLogits(model.config, model.weights, seq.slice(0, t))[t - 1])).toBeLessThan(2e-4);
        expect(dist.of(1 - who, 0)).toBeNull();
        if (t < authors.length) dist = await lazy.step([seq[t]], Int32Array.of(authors[t]));
      }
      expect(Array.from(lazy.lengths)).toEqual([7]);
    });
  });

  describe('having a temperature', () => {
    it('should return the tempered distribution softmax(logits / T)', async () => {
      const { config, weights, policy } = randomModel();
      const decoder = await open([policy], { batch: 1, maxLen: 8, threads: 1 });
      decoder.setTemperature(0.5);
      const probs = await decoder.prefill([[1, 2, 3]]);
      const reference = referenceLogits(config, weights, [1, 2, 3])[2].map((l) => l / 0.5);
      expect(logprobGap(probs, 0, 0, reference)).toBeLessThan(4e-4);
    });
  });

  describe('having policies with different tokenizers', () => {
    it('should refuse with TOKENIZER_MISMATCH', async () => {
      const a = randomModel({}, 1, 'senior');
      const b = { ...randomModel({}, 2, 'junior').policy, tokenizerHash: 'other' };
      await expect(Decoder.create([a.policy, b], { batch: 1, maxLen: 8 })).rejects.toSatisfy((e) => LudusError.is(e, 'TOKENIZER_MISMATCH'));
    });
  });

  describe('having weights bound as external initializers (the CUDA path) instead of inputs', () => {
    it('should give the same distributions bit for bit', async () => {
      const a = randomModel({}, 1, 'senior');
      const b = randomModel({}, 2, 'junior');
      const prompts = [[3, 1, 4], [1, 5], [9, 2, 6, 5]];
      const results: Float32Array[][] = [];
      for (const weights of ['inputs', 'initializers'] as const) {
        const pair = await open([a.policy, b.policy], { batch: 3, maxLen: 16, threads: 1, weights });
        const first = await pair.prefill(prompts);
        const next = await pair.step([7, 8, 9]);
        results.push([first.of(0, 0)!.slice(), first.of(1, 2)!.slice(), next.of(0, 1)!.slice(), next.of(1, 0)!.slice()]);
      }
      for (let i = 0; i < results[0].length; i++) expect(Array.from(results[1][i])).toEqual(Array.from(results[0][i]));
    });
  });

  describe('having a policy whose weights a learner changed in place', () => {
    for (const weights of ['inputs', 'initializers'] as const) {
      it(`should decode with the new weights after updatePolicy (${weights})`, async () => {
        const { config, weights: w, policy } = randomModel({}, 3, 'senior');
        const mine = { ...policy, weights: new Map([...w].map(([name, t]) => [name, { dims: t.dims, data: Float32Array.from(t.data) }])) };
        const decoder = await open([mine], { batch: 1, maxLen: 8, threads: 1, weights });
        await decoder.prefill([[1, 2, 3]]);
        const head = mine.weights.get('model.embed_tokens.weight')!.data;
        for (let i = 0; i < head.length; i++) head[i] *= 1.5;
        await decoder.updatePolicy(0, mine);
        const probs = await decoder.prefill([[1, 2, 3]]);
        expect(logprobGap(probs, 0, 0, referenceLogits(config, mine.weights, [1, 2, 3])[2])).toBeLessThan(2e-4);
      });
    }
  });

  describe('having models larger than the size that stays baked in when trained (bakeMaxBytes)', () => {
    it('should bake each frozen member and move only an updated one to inputs, decoding its new weights', async () => {
      const senior = randomModel({}, 3, 'senior');
      const junior = randomModel({}, 5, 'junior');
      const mine = { ...senior.policy, weights: new Map([...senior.weights].map(([name, t]) => [name, { dims: t.dims, data: Float32Array.from(t.data) }])) };
      const decoder = await open([mine, junior.policy], { batch: 2, maxLen: 8, threads: 1, bakeMaxBytes: 0 });
      expect(decoder.bindings).toEqual(['initializers', 'initializers']);
      const head = mine.weights.get('model.embed_tokens.weight')!.data;
      for (let i = 0; i < head.length; i++) head[i] *= 1.5;
      await decoder.updatePolicy(0, mine);
      expect(decoder.bindings).toEqual(['inputs', 'initializers']);
      const probs = await decoder.prefill([[1, 2, 3], [4, 5]], null);
      expect(logprobGap(probs, 0, 0, referenceLogits(senior.config, mine.weights, [1, 2, 3])[2])).toBeLessThan(2e-4);
      expect(logprobGap(probs, 1, 1, referenceLogits(junior.config, junior.weights, [4, 5])[1])).toBeLessThan(2e-4);
      // A second update compiles nothing: the member already reads its weights as inputs.
      for (let i = 0; i < head.length; i++) head[i] *= 0.5;
      await decoder.updatePolicy(0, mine);
      const again = await decoder.prefill([[1, 2, 3], [4, 5]], null);
      expect(logprobGap(again, 0, 0, referenceLogits(senior.config, mine.weights, [1, 2, 3])[2])).toBeLessThan(2e-4);
    });

    it('should keep a large model as inputs when baking it would take more than half the memory available', async () => {
      const { policy } = randomModel();
      const bytes = weightsBytes(policy.weights);
      const saved = process.env.LUDUS_MEMORY_BYTES;
      process.env.LUDUS_MEMORY_BYTES = String(4 * bytes - 4);
      try {
        const decoder = await open([policy], { batch: 1, maxLen: 8, threads: 1, bakeMaxBytes: 0 });
        expect(decoder.bindings).toEqual(['inputs']);
      } finally {
        if (saved === undefined) delete process.env.LUDUS_MEMORY_BYTES;
        else process.env.LUDUS_MEMORY_BYTES = saved;
      }
      const roomy = await open([policy], { batch: 1, maxLen: 8, threads: 1, bakeMaxBytes: 0 });
      expect(roomy.bindings).toEqual(['initializers']);
      const reserved = await open([policy], { batch: 1, maxLen: 8, threads: 1, bakeMaxBytes: 0, reservedBytes: Number.MAX_SAFE_INTEGER });
      expect(reserved.bindings).toEqual(['inputs']);
    });
  });

  describe('having caches that would outgrow the memory available', () => {
    it('should fail with MEMORY_INSUFFICIENT before growing them, naming rows and positions', async () => {
      const { policy } = randomModel();
      const decoder = await open([policy], { batch: 4, maxLen: 4096, threads: 1 });
      await decoder.prefill([[1], [2], [3], [4]]);
      const saved = process.env.LUDUS_MEMORY_BYTES;
      process.env.LUDUS_MEMORY_BYTES = String(64 * 1024);
      try {
        const error = await decoder.append([Array.from({ length: 200 }, () => 5), [6], [7], [8]]).then(() => null, (e: unknown) => e);
        // 201 positions needed, aligned up to 208 (grownCapacity).
        expect(LudusError.is(error, 'MEMORY_INSUFFICIENT')).toBe(true);
        expect((error as LudusError).message).toContain('4 rows growing to 208 positions');
      } finally {
        if (saved === undefined) delete process.env.LUDUS_MEMORY_BYTES;
        else process.env.LUDUS_MEMORY_BYTES = saved;
      }
    });
  });

  describe('having weights to bake in as initializers that would not fit twice in the memory available', () => {
    it('should fail with MEMORY_INSUFFICIENT before onnxruntime copies them, and open a session with weights as inputs', async () => {
      const { policy } = randomModel();
      const bytes = [...policy.weights.values()].reduce((sum, t) => sum + t.data.byteLength, 0);
      const saved = process.env.LUDUS_MEMORY_BYTES;
      process.env.LUDUS_MEMORY_BYTES = String(Math.floor(1.5 * bytes));
      try {
        const error = await open([policy], { batch: 1, maxLen: 8, threads: 1, weights: 'initializers' }).then(() => null, (e: unknown) => e);
        expect(LudusError.is(error, 'MEMORY_INSUFFICIENT')).toBe(true);
        expect((error as LudusError).message).toContain('baked in as initializers');
        const inputs = await open([policy], { batch: 1, maxLen: 8, threads: 1, weights: 'inputs' });
        expect((await inputs.prefill([[1, 2, 3]])).of(0, 0)).not.toBeNull();
      } finally {
        if (saved === undefined) delete process.env.LUDUS_MEMORY_BYTES;
        else process.env.LUDUS_MEMORY_BYTES = saved;
      }
    });
  });

  describe('having a row at the cache capacity', () => {
    it('should fail with SEQUENCE_TOO_LONG instead of writing past the cache', async () => {
      const { policy } = randomModel();
      const decoder = await open([policy], { batch: 1, maxLen: 4, threads: 1 });
      await decoder.prefill([[1, 2, 3]]);
      await decoder.step([4]);
      await expect(decoder.step([5])).rejects.toSatisfy((e) => LudusError.is(e, 'SEQUENCE_TOO_LONG'));
    });
  });
});
