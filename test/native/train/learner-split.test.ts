import { describe, expect, it } from 'vitest';
import { initWeights, presetConfig } from '../../../native/model/presets.ts';
import { cloneWeights, type Weights } from '../../../native/model/weights.ts';
import { Learner, stepStats, type LearnBatch } from '../../../native/train/learner.ts';
import { LEARNER_PRESETS } from '../../../native/train/learner-config.ts';
import { Rng } from '../../../core/rng.ts';

const config = presetConfig('qwen3-micro');

/** Random right-padded rows of a policy-gradient batch (prompt of 2 tokens), old logprobs to be filled in. */
function batchOf(lengths: number[], cols: number, seed: number): Omit<LearnBatch, 'oldLogprobs'> {
  const rng = new Rng(seed);
  const n = lengths.length * cols;
  const inputIds = new Int32Array(n);
  const targets = new Int32Array(n);
  const lossMask = new Float32Array(n);
  lengths.forEach((length, r) => {
    const row = Array.from({ length: length + 1 }, () => rng.int(config.vocabSize));
    for (let t = 0; t < length; t++) {
      inputIds[r * cols + t] = row[t];
      targets[r * cols + t] = row[t + 1];
      lossMask[r * cols + t] = t >= 2 ? 1 : 0;
    }
  });
  return { rows: lengths.length, cols, inputIds, targets, lossMask, advantages: lengths.map(() => rng.normal()) };
}

function bytesOf(weights: Weights): string[] {
  return [...weights].map(([name, t]) => `${name}:${Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).toString('base64')}`);
}

describe('Learner.step split into forwardBackward and optimStep (the trainer API\'s two calls)', () => {
  it('should leave bit-identical weights, moments and statistics after several steps of micro-batched policy gradient', async () => {
    const base = initWeights(config, 4);
    const settings = { ...LEARNER_PRESETS['tiny-grpo'], threads: 1, microBatchRows: 2, entropyCoef: 0.01, optimizer: { lr: 1e-3 } };
    const whole = await Learner.create(config, cloneWeights(base), settings);
    const split = await Learner.create(config, cloneWeights(base), settings);
    for (let s = 0; s < 3; s++) {
      const batch = batchOf([7, 5, 8], 8, 10 + s);
      const oldLogprobs = await whole.score(batch);
      const options = { klBeta: 0, entropyCoef: s * 0.005, lr: 1e-3 * (s + 1) };
      const a = await whole.step({ ...batch, oldLogprobs }, options);
      const sums = await split.forwardBackward({ ...batch, oldLogprobs }, options);
      const b = stepStats(await split.optimStep({ lr: options.lr }), sums);
      expect(b).toEqual(a);
      expect(Object.is(b.loss, a.loss) && Object.is(b.gradNorm, a.gradNorm)).toBe(true);
    }
    expect(bytesOf(split.weights)).toEqual(bytesOf(whole.weights));
    const [ma, mb] = [whole.optimizerState(), split.optimizerState()];
    expect(mb.step).toBe(3);
    expect(bytesOf(new Map(Object.entries(mb.m).map(([k, d]) => [k, { dims: [], data: d }])))).toEqual(bytesOf(new Map(Object.entries(ma.m).map(([k, d]) => [k, { dims: [], data: d }]))));
    expect(bytesOf(new Map(Object.entries(mb.v).map(([k, d]) => [k, { dims: [], data: d }])))).toEqual(bytesOf(new Map(Object.entries(ma.v).map(([k, d]) => [k, { dims: [], data: d }]))));
    await whole.release();
    await split.release();
  });

  it('should add the gradients of two forward-backward calls: rows sent apart under constant normalization sum to twice the batch\'s (each call normalizes over its own rows)', async () => {
    const base = initWeights(config, 5);
    const settings = { ...LEARNER_PRESETS['tiny-grpo'], threads: 1, microBatchRows: 1, normalization: 'constant' as const, constantTokens: 6 };
    const batch = batchOf([6, 6], 6, 21);
    const scorer = await Learner.create(config, cloneWeights(base), { threads: 1 });
    const oldLogprobs = await scorer.score(batch);
    const together = await Learner.create(config, cloneWeights(base), settings);
    const apart = await Learner.create(config, cloneWeights(base), settings);
    const a = await together.step({ ...batch, oldLogprobs });
    const half = (r: number): LearnBatch => ({
      rows: 1,
      cols: 6,
      inputIds: (batch.inputIds as Int32Array).slice(r * 6, r * 6 + 6),
      targets: (batch.targets as Int32Array).slice(r * 6, r * 6 + 6),
      lossMask: (batch.lossMask as Float32Array).slice(r * 6, r * 6 + 6),
      advantages: [batch.advantages![r]],
      oldLogprobs: oldLogprobs.slice(r * 6, r * 6 + 6),
    });
    const first = await apart.forwardBackward(half(0));
    const second = await apart.forwardBackward(half(1));
    const b = await apart.optimStep();
    expect(first.microBatches + second.microBatches).toBe(a.microBatches);
    expect((first.loss + second.loss) / 2).toBeCloseTo(a.loss, 6);
    expect(b.gradNorm / 2 / a.gradNorm).toBeCloseTo(1, 5);
    expect(b.step).toBe(a.step);
    for (const l of [scorer, together, apart]) await l.release();
  });

  it('should take an update from zero gradients, not the last step\'s, when nothing was accumulated', async () => {
    const learner = await Learner.create(config, initWeights(config, 6), { ...LEARNER_PRESETS['tiny-grpo'], threads: 1 });
    const batch = batchOf([6], 6, 3);
    await learner.step({ ...batch, oldLogprobs: await learner.score(batch) });
    const update = await learner.optimStep();
    expect(update.step).toBe(2);
    expect(update.gradNorm).toBe(0);
    await learner.release();
  });
});
