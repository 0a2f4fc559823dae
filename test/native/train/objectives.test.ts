import { beforeAll, describe, expect, it } from 'vitest';
import { initWeights, presetConfig } from '../../../native/model/presets.ts';
import { buildScoreGraph, buildTrainGraph } from '../../../native/train/train-graph.ts';
import type { Feeds } from '../../../native/ort.ts';
import { floatTensor, openGraph, randomBatch, tokenFeeds, weightFeeds } from './fixtures.ts';

const config = presetConfig('qwen3-micro');
const weights = initWeights(config, 5, 0.2);
const batch = randomBatch(config, [8, 5], 8, 21);
const dims = [batch.rows, batch.cols];
const N = batch.rows * batch.cols;
const CLIP_LOW = 0.2;
const CLIP_HIGH = 0.28;

/** The per-token loss as written in the papers, computed here in plain TypeScript. */
function referenceTokenLoss(lp: number, old: number, ref: number, advantage: number, entropy: number, beta: number, entropyCoef: number): number {
  const ratio = Math.exp(lp - old);
  const clipped = Math.min(Math.max(ratio, 1 - CLIP_LOW), 1 + CLIP_HIGH);
  const k3 = Math.exp(ref - lp) - (ref - lp) - 1;
  return -Math.min(ratio * advantage, clipped * advantage) + beta * k3 - entropyCoef * entropy;
}

let current: { logprobs: Float64Array; full: Float64Array };

beforeAll(async () => {
  const score = await openGraph(buildScoreGraph(config, { dtype: 'float64', fullLogProbs: true }));
  const out = await score.run({ ...weightFeeds(weights, 'float64'), ...tokenFeeds(batch), temperature: floatTensor('float64', [1], []) });
  current = { logprobs: out.logprobs, full: out.log_probs_full };
});

/** Each token gets one case: [log(old/new) shift, advantage, clipped?] — ratio r = exp(−shift). */
const CASES: Array<{ name: string; shift: number; advantage: number; clipped: boolean }> = [
  { name: 'inside the range, A > 0', shift: -0.1, advantage: 1.5, clipped: false },
  { name: 'inside the range, A < 0', shift: 0.1, advantage: -0.8, clipped: false },
  { name: 'r above 1+ε_high, A > 0: clipped', shift: -0.5, advantage: 1.0, clipped: true },
  { name: 'r above 1+ε_high, A < 0: unclipped (pessimistic)', shift: -0.5, advantage: -1.2, clipped: false },
  { name: 'r below 1−ε_low, A < 0: clipped', shift: 0.6, advantage: -0.9, clipped: true },
  { name: 'r below 1−ε_low, A > 0: unclipped (pessimistic)', shift: 0.6, advantage: 0.4, clipped: false },
  { name: 'zero advantage', shift: 0.6, advantage: 0, clipped: false },
];

async function runPolicyGradient(beta: number, entropyCoef: number, refShift: (i: number) => number, imitation: (i: number) => number = () => 0) {
  const graph = await openGraph(buildTrainGraph(config, { objective: 'policy-gradient', dtype: 'float64' }));
  const lossWeights = batch.mask.map((m) => m * 0.125);
  const old = Array.from(current.logprobs, (lp, i) => lp + CASES[i % CASES.length].shift);
  const ref = Array.from(current.logprobs, (lp, i) => lp + refShift(i));
  const advantages = Array.from({ length: N }, (_, i) => CASES[i % CASES.length].advantage);
  const feeds: Feeds = {
    ...weightFeeds(weights, 'float64'),
    ...tokenFeeds(batch),
    weights: floatTensor('float64', lossWeights, dims),
    advantages: floatTensor('float64', advantages, dims),
    old_logprobs: floatTensor('float64', old, dims),
    ref_logprobs: floatTensor('float64', ref, dims),
    imitation_weights: floatTensor('float64', Array.from({ length: N }, (_, i) => imitation(i)), dims),
    temperature: floatTensor('float64', [1], []),
    clip_low: floatTensor('float64', [CLIP_LOW], []),
    clip_high: floatTensor('float64', [CLIP_HIGH], []),
    kl_beta: floatTensor('float64', [beta], []),
    entropy_coef: floatTensor('float64', [entropyCoef], []),
  };
  const out = await graph.run(feeds);
  let expected = 0;
  for (let i = 0; i < N; i++) {
    expected += lossWeights[i] * referenceTokenLoss(out.logprobs[i], old[i], ref[i], advantages[i], out.entropy[i], beta, entropyCoef) - imitation(i) * out.logprobs[i];
  }
  return { out, expected, ref };
}

describe('policy-gradient objective', () => {
  it('reports the logprobs of the forward-only scoring graph', async () => {
    const { out } = await runPolicyGradient(0, 0, () => 0);
    for (let i = 0; i < N; i++) expect(out.logprobs[i]).toBeCloseTo(current.logprobs[i], 12);
  });

  it('loss equals −Σ w·min(r·A, clip(r)·A) across clipped and unclipped cases of both advantage signs', async () => {
    const { out, expected } = await runPolicyGradient(0, 0, () => 0);
    expect(out.loss[0]).toBeCloseTo(expected, 12);
    for (let i = 0; i < N; i++) expect(out.clipped[i]).toBe(CASES[i % CASES.length].clipped ? 1 : 0);
    const clippedTrained = batch.mask.filter((m, i) => m !== 0 && CASES[i % CASES.length].clipped).length;
    expect(clippedTrained).toBeGreaterThan(0);
    expect(out.clip_count[0]).toBe(clippedTrained);
  });

  it('adds β·k3 with k3 = exp(ref − lp) − (ref − lp) − 1, reported per token', async () => {
    const refShift = (i: number): number => ((i % 5) - 2) * 0.3;
    const { out, expected } = await runPolicyGradient(0.25, 0, refShift);
    expect(out.loss[0]).toBeCloseTo(expected, 12);
    for (let i = 0; i < N; i++) expect(out.kl[i]).toBeCloseTo(Math.exp(refShift(i)) - refShift(i) - 1, 12);
  });

  it('subtracts Σ imitation_weights · log p(target) for λ_jun, on positions the policy-gradient mask leaves out', async () => {
    const imitation = (i: number): number => (batch.mask[i] === 0 && i % 2 === 1 ? 0.3 : 0);
    expect(Array.from({ length: N }, (_, i) => imitation(i)).some((w) => w > 0)).toBe(true);
    const { out, expected } = await runPolicyGradient(0, 0, () => 0, imitation);
    const { out: without } = await runPolicyGradient(0, 0, () => 0);
    expect(out.loss[0]).toBeCloseTo(expected, 12);
    expect(out.loss[0]).not.toBeCloseTo(without.loss[0], 6);
  });

  it('subtracts entropy_coef·H with H = −Σ p log p over the vocabulary', async () => {
    const { out, expected } = await runPolicyGradient(0, 0.05, () => 0);
    expect(out.loss[0]).toBeCloseTo(expected, 12);
    const V = config.vocabSize;
    for (let i = 0; i < N; i++) {
      let h = 0;
      for (let j = 0; j < V; j++) h -= Math.exp(current.full[i * V + j]) * current.full[i * V + j];
      expect(out.entropy[i]).toBeCloseTo(h, 12);
    }
  });
});

describe('policy-gradient objective with the exact KL (klExact)', () => {
  const referenceWeights = initWeights(config, 9, 0.2);
  const prefixed = (feeds: Feeds) => Object.fromEntries(Object.entries(feeds).map(([name, t]) => [`ref.${name}`, t]));

  it('adds β·Σ_v p (log p − log p_ref) per position, the reference run in the graph from its weights, reported per token', async () => {
    const beta = 0.25;
    const temperature = 0.8;
    const score = await openGraph(buildScoreGraph(config, { dtype: 'float64', fullLogProbs: true }));
    const full = async (w: typeof weights) =>
      (await score.run({ ...weightFeeds(w, 'float64'), ...tokenFeeds(batch), temperature: floatTensor('float64', [temperature], []) })).log_probs_full;
    const [policy, reference] = [await full(weights), await full(referenceWeights)];
    const V = config.vocabSize;
    const exact = Array.from({ length: N }, (_, i) => {
      let kl = 0;
      for (let v = 0; v < V; v++) kl += Math.exp(policy[i * V + v]) * (policy[i * V + v] - reference[i * V + v]);
      return kl;
    });
    const graph = await openGraph(buildTrainGraph(config, { objective: 'policy-gradient', dtype: 'float64', klExact: true }));
    const lossWeights = batch.mask.map((m) => m * 0.125);
    const out = await graph.run({
      ...weightFeeds(weights, 'float64'),
      ...prefixed(weightFeeds(referenceWeights, 'float64')),
      ...tokenFeeds(batch),
      weights: floatTensor('float64', lossWeights, dims),
      // Zero advantages: the loss is the KL term alone.
      advantages: floatTensor('float64', new Array(N).fill(0), dims),
      old_logprobs: floatTensor('float64', new Array(N).fill(0), dims),
      imitation_weights: floatTensor('float64', new Array(N).fill(0), dims),
      temperature: floatTensor('float64', [temperature], []),
      clip_low: floatTensor('float64', [CLIP_LOW], []),
      clip_high: floatTensor('float64', [CLIP_HIGH], []),
      kl_beta: floatTensor('float64', [beta], []),
      entropy_coef: floatTensor('float64', [0], []),
    });
    expect(Math.min(...exact.filter((_, i) => batch.mask[i] !== 0))).toBeGreaterThan(1e-4);
    expect(out.loss[0]).toBeCloseTo(beta * lossWeights.reduce((sum, w, i) => sum + w * exact[i], 0), 12);
    for (let i = 0; i < N; i++) expect(out.kl[i]).toBeCloseTo(exact[i], 12);
    await score.session.release();
    await graph.session.release();
  });

  it('takes the reference weights as ref.<name> inputs instead of per-token ref_logprobs', () => {
    const built = buildTrainGraph(config, { objective: 'policy-gradient', klExact: true });
    expect(built.inputNames).not.toContain('ref_logprobs');
    expect(built.inputNames.filter((name) => name.startsWith('ref.'))).toEqual(built.weightNames.map((name) => `ref.${name}`));
  });
});

describe('sft objective', () => {
  it('loss equals −Σ weights · log p(target)', async () => {
    const graph = await openGraph(buildTrainGraph(config, { objective: 'sft', dtype: 'float64' }));
    const lossWeights = batch.mask.map((m, i) => m * (1 + (i % 3)) * 0.05);
    const out = await graph.run({
      ...weightFeeds(weights, 'float64'),
      ...tokenFeeds(batch),
      weights: floatTensor('float64', lossWeights, dims),
      temperature: floatTensor('float64', [1], []),
    });
    const expected = -lossWeights.reduce((sum, w, i) => sum + w * current.logprobs[i], 0);
    expect(out.loss[0]).toBeCloseTo(expected, 12);
  });
});

describe('temperature', () => {
  it('divides the logits before the softmax', async () => {
    const score = await openGraph(buildScoreGraph(config, { dtype: 'float64', fullLogProbs: true }));
    const out = await score.run({ ...weightFeeds(weights, 'float64'), ...tokenFeeds(batch), temperature: floatTensor('float64', [0.5], []) });
    const V = config.vocabSize;
    // log_softmax(z/τ) from log_softmax(z): z ≡ log p up to a per-row constant.
    for (const i of [0, 3, N - 1]) {
      const scaled = Array.from(current.full.subarray(i * V, (i + 1) * V), (lp) => lp / 0.5);
      const max = Math.max(...scaled);
      const logZ = max + Math.log(scaled.reduce((s, z) => s + Math.exp(z - max), 0));
      expect(out.logprobs[i]).toBeCloseTo(scaled[batch.targets[i]] - logZ, 10);
    }
  });
});
