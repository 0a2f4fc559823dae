import { describe, expect, it, vi } from 'vitest';
import { initWeights, presetConfig } from '../../../native/model/presets.ts';
import { cloneWeights, type Weights } from '../../../native/model/weights.ts';
import { chooseRunBudget, RUN_BUDGET_BYTES, rowsWithinBudget, trainRunBytes } from '../../../native/model/memory.ts';
import { Learner, stepStats, trainingStateBytes, type LearnBatch } from '../../../native/train/learner.ts';
import { LEARNER_PRESETS } from '../../../native/train/learner-config.ts';
import { LudusError } from '../../../core/errors.ts';
import { Rng } from '../../../core/rng.ts';

const config = presetConfig('qwen3-micro');

/** Rows of random tokens, right-padded to `cols`, training on everything after a 2-token prompt. */
function batchOf(lengths: number[], cols: number, seed: number): Omit<LearnBatch, 'advantages' | 'oldLogprobs'> {
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
  return { rows: lengths.length, cols, inputIds, targets, lossMask };
}

describe('Learner', () => {
  it('memorizes a fixed sequence with SFT in float32: loss falls by a large factor', async () => {
    const learner = await Learner.create(config, initWeights(config, 1), { objective: 'sft', optimizer: { lr: 1e-2 }, threads: 1 });
    const batch = batchOf([24], 24, 9);
    const first = await learner.step(batch);
    let last = first;
    for (let i = 0; i < 40; i++) last = await learner.step(batch);
    expect(first.loss).toBeGreaterThan(3.5); // ≈ ln 64 at init
    expect(last.loss).toBeLessThan(first.loss / 50);
    expect(last.step).toBe(41);
    await learner.release();
  });

  it('runs as many rows at once as the run budget holds at the batch\'s length when no microBatchRows is set', async () => {
    const auto = await Learner.create(config, initWeights(config, 2), { threads: 1, objective: 'sft' });
    const fixed = await Learner.create(config, initWeights(config, 2), { threads: 1, microBatchRows: 3 });
    for (const cols of [8, 24]) {
      expect(auto.rowsPerRun(1000, cols)).toBe(rowsWithinBudget(config, 1000, cols, auto.runBudgetBytes));
      expect(fixed.rowsPerRun(1000, cols)).toBe(3);
    }
    expect(auto.rowsPerRun(5, 8)).toBe(5);
    const stats = await auto.step(batchOf([7, 5, 8], 8, 3));
    expect(stats.microBatches).toBe(1);
    await auto.release();
    await fixed.release();
  });

  it('chooses its run budget from the memory available when created, or takes the one it is given', async () => {
    const GiB = 2 ** 30;
    vi.stubEnv('LUDUS_MEMORY_BYTES', String(6 * GiB));
    try {
      const chosen = await Learner.create(config, initWeights(config, 2), { threads: 1 });
      expect(chosen.runBudgetBytes).toBe(chooseRunBudget(trainingStateBytes(config)));
      expect(chosen.runBudgetBytes).toBeGreaterThan(2 * GiB);
      const given = await Learner.create(config, initWeights(config, 2), { threads: 1, runBudgetBytes: RUN_BUDGET_BYTES / 4 });
      expect(given.runBudgetBytes).toBe(RUN_BUDGET_BYTES / 4);
      const cols = 256;
      expect(given.rowsPerRun(1000, cols)).toBe(Math.floor(RUN_BUDGET_BYTES / 4 / trainRunBytes(config, 1, cols)));
      expect(chosen.rowsPerRun(1000, cols)).toBeGreaterThan(8 * given.rowsPerRun(1000, cols));
      await chosen.release();
      await given.release();
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('asks the machine only for what a run needs beyond the arena its earlier runs kept', async () => {
    const learner = await Learner.create(config, initWeights(config, 2), { threads: 1, objective: 'sft' });
    const batch = batchOf([7, 5, 8], 8, 3);
    const bytes = trainRunBytes(config, 3, 8);
    vi.stubEnv('LUDUS_MEMORY_BYTES', String(bytes - 1));
    try {
      expect(() => learner.ensureStepFits(3, 8)).toThrow(LudusError);
      vi.stubEnv('LUDUS_MEMORY_BYTES', String(bytes));
      await learner.step(batch);
      // The arena holds the first run's memory: the same run needs nothing more, a longer one only the difference.
      vi.stubEnv('LUDUS_MEMORY_BYTES', '1');
      await learner.step(batch);
      vi.stubEnv('LUDUS_MEMORY_BYTES', String(trainRunBytes(config, 3, 16) - bytes - 1));
      expect(() => learner.ensureStepFits(3, 16)).toThrow(/beyond the .* its session's arena kept from earlier runs/);
      vi.stubEnv('LUDUS_MEMORY_BYTES', String(trainRunBytes(config, 3, 16) - bytes));
      expect(() => learner.ensureStepFits(3, 16)).not.toThrow();
    } finally {
      vi.unstubAllEnvs();
      await learner.release();
    }
  });

  it('gradient accumulation over micro-batches gives the same update as one big batch', async () => {
    const base = initWeights(config, 2);
    const batch = { ...batchOf([7, 5, 8], 8, 3), advantages: [1, -0.5, 0.25], normalization: 'sequence-mean' as const };
    const scorer = await Learner.create(config, cloneWeights(base), { threads: 1 });
    const oldLogprobs = await scorer.score(batch);
    const settings = { ...LEARNER_PRESETS['tiny-grpo'], threads: 1 };
    const whole = await Learner.create(config, cloneWeights(base), settings);
    const split = await Learner.create(config, cloneWeights(base), { ...settings, microBatchRows: 2 });
    const a = await whole.step({ ...batch, oldLogprobs });
    const b = await split.step({ ...batch, oldLogprobs });
    expect(b.microBatches).toBe(2);
    expect(b.loss).toBeCloseTo(a.loss, 6);
    expect(b.gradNorm).toBeCloseTo(a.gradNorm, 5);
    expect(b.tokens).toBe(a.tokens);
    for (const [name, t] of whole.weights) {
      const other = split.weights.get(name)!.data;
      for (let i = 0; i < t.data.length; i += 97) expect(other[i]).toBeCloseTo(t.data[i], 6);
    }
  });

  it('λ_jun: adds λ · the token-mean NLL of the imitated positions, which may sit in rows with no policy-gradient token', async () => {
    const base = initWeights(config, 6);
    const batch = batchOf([6, 6, 6], 6, 8);
    // Row 0 is trained by the policy gradient; rows 1 and 2 (no policy-gradient token at all) are imitated.
    const lossMask = Float32Array.from(batch.lossMask, (m, i) => (i < 6 ? m : 0));
    const imitationMask = Float32Array.from(batch.lossMask, (m, i) => (i >= 6 ? m : 0));
    const scorer = await Learner.create(config, cloneWeights(base), { threads: 1 });
    const logprobs = await scorer.score(batch);
    const lambda = 0.5;
    const imitated = [...imitationMask.keys()].filter((i) => imitationMask[i] === 1);
    const nll = -imitated.reduce((sum, i) => sum + logprobs[i], 0) / imitated.length;
    const settings = { ...LEARNER_PRESETS['tiny-grpo'], threads: 1, microBatchRows: 1 };
    const plain = await Learner.create(config, cloneWeights(base), settings);
    const imitating = await Learner.create(config, cloneWeights(base), { ...settings, imitationWeight: lambda });
    const step = { ...batch, lossMask, imitationMask, advantages: [1, 0, 0], oldLogprobs: logprobs };
    const a = await plain.step(step);
    const b = await imitating.step(step);
    expect(a.microBatches).toBe(1);
    expect(b.microBatches).toBe(3);
    expect(b.loss - a.loss).toBeCloseTo(lambda * nll, 5);
    // The imitated rows moved the weights: their logprobs rose under the imitating learner only.
    const after = async (learner: Learner) => (await learner.score(batch)).filter((_, i) => imitationMask[i] === 1).reduce((x, y) => x + y, 0);
    expect(await after(imitating)).toBeGreaterThan(await after(plain));
  });

  it('gives the same gradient on every run with two threads as with one, though tokens repeat (embedding scatter-add)', async () => {
    const big = presetConfig('qwen3-4m');
    const rng = new Rng(1);
    const rows = 16;
    const cols = 96;
    const n = rows * cols;
    // 40 distinct tokens over 1,536 positions: every embedding row gathers many gradient rows.
    const batch = {
      rows,
      cols,
      inputIds: Int32Array.from({ length: n }, () => 2 + rng.int(40)),
      targets: Int32Array.from({ length: n }, () => 2 + rng.int(40)),
      lossMask: Float32Array.from({ length: n }, (_, i) => (i % cols > 8 ? 1 : 0)),
      advantages: Float32Array.from({ length: rows }, () => rng.normal()),
    };
    const norms = async (threads: number): Promise<number[]> => {
      const learner = await Learner.create(big, initWeights(big, 3), { ...LEARNER_PRESETS['tiny-grpo'], threads });
      const oldLogprobs = await learner.score(batch);
      const out: number[] = [];
      for (let i = 0; i < 4; i++) out.push((await learner.step({ ...batch, oldLogprobs }, { lr: 1e-12 })).gradNorm);
      await learner.release();
      return out;
    };
    const one = await norms(1);
    const two = await norms(2);
    expect(two).toEqual(one);
  });

  it('on-policy step: ratio 1 means nothing clipped and zero KL to a reference equal to the policy', async () => {
    const learner = await Learner.create(config, initWeights(config, 4), { ...LEARNER_PRESETS['tiny-grpo'], klBeta: 0.05, threads: 1 });
    const batch = batchOf([6, 6], 6, 5);
    const logprobs = await learner.score(batch);
    const stats = await learner.step({ ...batch, advantages: [1, -1], oldLogprobs: logprobs, refLogprobs: logprobs });
    expect(stats.clipFraction).toBe(0);
    expect(Math.abs(stats.klMean)).toBeLessThan(1e-6);
    expect(stats.entropyMean).toBeGreaterThan(3.5);
    expect(stats.entropyMean).toBeLessThanOrEqual(Math.log(config.vocabSize) + 1e-4);
    expect(stats.tokens).toBe(8);
    // With ratio 1 and token-mean weights, the loss is −mean(A) over trained tokens: (−4 + 4) / 8.
    expect(stats.loss).toBeCloseTo(0, 6);
  });

  it('a per-step entropy coefficient overrides the configured one: the loss falls by coef · mean entropy on an on-policy step with A = 0', async () => {
    const learner = await Learner.create(config, initWeights(config, 4), { ...LEARNER_PRESETS['tiny-grpo'], entropyCoef: 0.5, threads: 1 });
    const batch = batchOf([6, 6], 6, 5);
    const logprobs = await learner.score(batch);
    const half = await learner.step({ ...batch, advantages: [0, 0], oldLogprobs: logprobs }, { lr: 0 });
    expect(half.loss).toBeCloseTo(-0.5 * half.entropyMean, 5);
    const tenth = await learner.step({ ...batch, advantages: [0, 0], oldLogprobs: logprobs }, { lr: 0, entropyCoef: 0.1 });
    expect(tenth.loss).toBeCloseTo(-0.1 * tenth.entropyMean, 5);
    const plain = await Learner.create(config, initWeights(config, 4), { ...LEARNER_PRESETS['tiny-grpo'], threads: 1 });
    await expect(plain.step({ ...batch, advantages: [0, 0], oldLogprobs: logprobs }, { entropyCoef: 0.1 })).rejects.toThrow(/CONFIG_INVALID.*entropy/);
  });

  describe('with the exact KL (klEstimator: exact)', () => {
    it('reads 0 to a reference equal to the policy and a positive KL to another, from batches without refLogprobs', async () => {
      const weights = initWeights(config, 4);
      const batch = batchOf([6, 6], 6, 5);
      const same = await Learner.create(config, cloneWeights(weights), { ...LEARNER_PRESETS['tiny-grpo'], klBeta: 0.05, klEstimator: 'exact', threads: 1 }, cloneWeights(weights));
      const logprobs = await same.score(batch);
      expect(Math.abs((await same.step({ ...batch, advantages: [1, -1], oldLogprobs: logprobs })).klMean)).toBeLessThan(1e-6);
      const other = await Learner.create(config, cloneWeights(weights), { ...LEARNER_PRESETS['tiny-grpo'], klBeta: 0.05, klEstimator: 'exact', threads: 1 }, initWeights(config, 9));
      expect((await other.step({ ...batch, advantages: [1, -1], oldLogprobs: logprobs })).klMean).toBeGreaterThan(1e-3);
      await same.release();
      await other.release();
    });

    it('refuses to start without the reference weights (CONFIG_INVALID)', async () => {
      await expect(Learner.create(config, initWeights(config, 1), { klBeta: 0.1, klEstimator: 'exact' })).rejects.toThrow(/CONFIG_INVALID.*reference/);
    });
  });

  it('a per-step learning rate overrides the configured one (schedules): lr 0 moves nothing', async () => {
    const learner = await Learner.create(config, initWeights(config, 6), { objective: 'sft', optimizer: { lr: 0.1 }, threads: 1 });
    const before = cloneWeights(learner.weights);
    const stats = await learner.step(batchOf([6], 6, 8), { lr: 0 });
    expect(stats.step).toBe(1);
    for (const [name, t] of before) expect(learner.weights.get(name)!.data).toEqual(t.data);
  });

  it('score() defaults targets to the next input token', async () => {
    const learner = await Learner.create(config, initWeights(config, 4), { threads: 1 });
    const batch = batchOf([5], 5, 6);
    const ids = Array.from(batch.inputIds as Int32Array);
    const explicit = await learner.score({ ...batch, targets: ids.map((_, t) => ids[t + 1] ?? 0) });
    const implicit = await learner.score({ rows: 1, cols: 5, inputIds: batch.inputIds });
    expect(Array.from(implicit.subarray(0, 4))).toEqual(Array.from(explicit.subarray(0, 4)));
    expect(implicit[4]).toBe(0);
  });

  it('a NaN reaching the loss raises NON_FINITE and leaves weights and optimizer untouched', async () => {
    const learner = await Learner.create(config, initWeights(config, 5), { ...LEARNER_PRESETS['tiny-grpo'], threads: 1 });
    const batch = batchOf([6], 6, 7);
    const oldLogprobs = await learner.score(batch);
    await learner.step({ ...batch, advantages: [1], oldLogprobs });
    const before = cloneWeights(learner.weights);
    const stateBefore = learner.optimizerState();
    const poisoned = Float32Array.from(oldLogprobs);
    poisoned[3] = Number.NaN;
    const error = await learner.step({ ...batch, advantages: [1], oldLogprobs: poisoned }).catch((e: unknown) => e);
    expect(LudusError.is(error, 'NON_FINITE')).toBe(true);
    expect((error as LudusError).details.step).toBe(2);
    for (const [name, t] of before) expect(learner.weights.get(name)!.data).toEqual(t.data);
    expect(learner.optimizerState()).toEqual(stateBefore);
  });

  it('rejects malformed batches and configs with coded errors', async () => {
    await expect(Learner.create(config, initWeights(config, 1), { clipLow: 2 })).rejects.toThrow(/CONFIG_INVALID.*clipLow/);
    const learner = await Learner.create(config, initWeights(config, 1), { klBeta: 0.1, threads: 1 });
    const batch = batchOf([4], 4, 1);
    await expect(learner.step({ ...batch, oldLogprobs: new Float32Array(4) })).rejects.toThrow(/INPUT_INVALID.*advantages/);
    await expect(learner.step({ ...batch, advantages: [1], oldLogprobs: new Float32Array(4) })).rejects.toThrow(/INPUT_INVALID.*refLogprobs/);
    await expect(learner.step({ ...batch, targets: [0, 1, 2, 999], advantages: [1], oldLogprobs: new Float32Array(4) })).rejects.toThrow(/INPUT_INVALID.*vocabulary/);
    const long = batchOf([300], 300, 1);
    await expect(learner.step({ ...long, advantages: [1], oldLogprobs: new Float32Array(300) })).rejects.toThrow(/SEQUENCE_TOO_LONG/);
  });

  it('refuses a training state that cannot fit in memory with MEMORY_INSUFFICIENT before allocating it', async () => {
    const saved = process.env.LUDUS_MEMORY_BYTES;
    process.env.LUDUS_MEMORY_BYTES = String(3 * 23776 * 4 - 1);
    try {
      await expect(Learner.create(config, initWeights(config, 1), { threads: 1 })).rejects.toThrow(/MEMORY_INSUFFICIENT.*23776 parameters/);
    } finally {
      if (saved === undefined) delete process.env.LUDUS_MEMORY_BYTES;
      else process.env.LUDUS_MEMORY_BYTES = saved;
    }
  });
});

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
      const batch = { ...batchOf([7, 5, 8], 8, 10 + s), advantages: [0.7, -1.2 + s, 0.4] };
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
    const batch = { ...batchOf([6, 6], 6, 21), advantages: [0.9, -0.3] };
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
      advantages: [batch.advantages[r]],
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
    const batch = { ...batchOf([6], 6, 3), advantages: [1] };
    await learner.step({ ...batch, oldLogprobs: await learner.score(batch) });
    const update = await learner.optimStep();
    expect(update.step).toBe(2);
    expect(update.gradNorm).toBe(0);
    await learner.release();
  });
});
