import { describe, expect, it } from 'vitest';
import { initWeights, presetConfig } from '../../../native/model/presets.ts';
import { buildScoreGraph, buildTrainGraph, gradName } from '../../../native/train/train-graph.ts';
import onnxProto from 'onnx-proto';
import type { Feeds } from '../../../native/ort.ts';
import { floatTensor, openGraph, randomBatch, tokenFeeds, weightFeeds } from './fixtures.ts';

const config = presetConfig('qwen3-micro', { tie_word_embeddings: false });
const batch = randomBatch(config, [7, 4, 6], 7, 12);
const dims = [batch.rows, batch.cols];
const N = batch.rows * batch.cols;
// Only the second half of each row is trained: the first half plays the prompt.
const trained = batch.mask.map((m, i) => (i % batch.cols >= 3 ? m : 0));
// Two positions of the untrained half carry an imitation weight (λ_jun): positions-only graphs keep them too.
const imitated = new Set([1, batch.cols + 2]);

function feeds(entropyCoef: number | null): Feeds {
  return {
    ...weightFeeds(initWeights(config, 3, 0.3), 'float64'),
    ...tokenFeeds(batch),
    weights: floatTensor('float64', trained.map((m) => m / 7), dims),
    advantages: floatTensor('float64', Array.from({ length: N }, (_, i) => Math.sin(i)), dims),
    old_logprobs: floatTensor('float64', Array.from({ length: N }, (_, i) => -4.2 + 0.1 * Math.cos(i)), dims),
    ref_logprobs: floatTensor('float64', Array.from({ length: N }, () => -4.1), dims),
    imitation_weights: floatTensor('float64', Array.from({ length: N }, (_, i) => (imitated.has(i) ? 0.2 : 0)), dims),
    temperature: floatTensor('float64', [1.1], []),
    clip_low: floatTensor('float64', [0.2], []),
    clip_high: floatTensor('float64', [0.2], []),
    kl_beta: floatTensor('float64', [0.04], []),
    ...(entropyCoef === null ? {} : { entropy_coef: floatTensor('float64', [entropyCoef], []) }),
  };
}

async function run(options: { entropyBonus?: boolean; weightedPositionsOnly?: boolean }, entropyCoef: number | null) {
  const graph = await openGraph(buildTrainGraph(config, { objective: 'policy-gradient', dtype: 'float64', ...options }));
  const out = await graph.run(feeds(entropyCoef));
  await graph.session.release();
  return out;
}

describe('train graph options', () => {
  it('weightedPositionsOnly: same loss and gradients, per-token outputs zero where the weight is zero', async () => {
    const all = await run({}, 0.01);
    const some = await run({ weightedPositionsOnly: true }, 0.01);
    expect(some.loss[0]).toBeCloseTo(all.loss[0], 12);
    for (const name of Object.keys(all).filter((k) => k.startsWith('grad.'))) {
      all[name].forEach((g, i) => expect(some[name][i]).toBeCloseTo(g, 12));
    }
    for (let i = 0; i < N; i++) {
      for (const output of ['logprobs', 'entropy', 'kl', 'clipped']) {
        expect(some[output][i]).toBeCloseTo(trained[i] || imitated.has(i) ? all[output][i] : 0, 12);
      }
    }
    expect(some[gradName('lm_head.weight')].some((g) => g !== 0)).toBe(true);
  });

  it('entropyBonus false: no entropy_coef input, the same result as a zero coefficient', async () => {
    const without = buildTrainGraph(config, { objective: 'policy-gradient', dtype: 'float64', entropyBonus: false });
    expect(without.inputNames).not.toContain('entropy_coef');
    const a = await run({ entropyBonus: false }, null);
    const b = await run({}, 0);
    expect(a.loss[0]).toBeCloseTo(b.loss[0], 12);
    const name = gradName('model.layers.1.mlp.down_proj.weight');
    a[name].forEach((g, i) => expect(b[name][i]).toBeCloseTo(g, 12));
  });
});

describe('buildTrainGraph and buildScoreGraph in the GPU op set', () => {
  it('should hold no LogSoftmax (which the WebGPU provider lacks) and be encoded at opset 20', () => {
    const micro = presetConfig('qwen3-micro');
    for (const built of [buildTrainGraph(micro, { objective: 'policy-gradient', klExact: true, opSet: 'gpu' }), buildScoreGraph(micro, { opSet: 'gpu' })]) {
      const model = onnxProto.onnx.ModelProto.decode(built.model);
      expect(model.graph!.node!.some((node) => node.opType === 'LogSoftmax')).toBe(false);
      expect(Number(model.opsetImport!.find((o) => o.domain === '')!.version)).toBe(20);
    }
    const cpu = onnxProto.onnx.ModelProto.decode(buildScoreGraph(micro).model);
    expect(cpu.graph!.node!.some((node) => node.opType === 'LogSoftmax')).toBe(true);
  });
});
