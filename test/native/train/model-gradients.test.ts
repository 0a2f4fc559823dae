import { describe, expect, it } from 'vitest';
import { presetConfig, initWeights } from '../../../native/model/presets.ts';
import type { ModelConfig } from '../../../native/model/config.ts';
import { buildTrainGraph, gradName } from '../../../native/train/train-graph.ts';
import type { Feeds } from '../../../native/ort.ts';
import { Rng } from '../../../core/rng.ts';
import { initAdapter, withAdapter } from '../../../native/model/lora.ts';
import { parseLoraConfig } from '../../../native/model/lora-config.ts';
import type { OpSet } from '../../../native/model/op-set.ts';
import { floatTensor, openGraph, randomBatch, tokenFeeds, weightFeeds } from './fixtures.ts';

/**
 * The whole model's policy-gradient loss, differentiated by the hand-written backward graph, against
 * central finite differences on a sample of parameter elements, in float64.
 */
async function checkModel(config: ModelConfig, options: { klExact?: boolean; opSet?: OpSet } = {}): Promise<{ maxRelativeError: number; checked: number; clippedTokens: number; gradNames: string[] }> {
  const built = buildTrainGraph(config, { objective: 'policy-gradient', dtype: 'float64', klExact: options.klExact, opSet: options.opSet });
  const graph = await openGraph(built);
  const batch = randomBatch(config, [6, 4], 6, 7);
  const rng = new Rng(3);
  const n = batch.rows * batch.cols;
  const dims = [batch.rows, batch.cols];
  const feeds: Feeds = {
    ...weightFeeds(initWeights(config, 11, 0.3), 'float64'),
    ...weightFeeds(initAdapter(config, 13), 'float64'),
    ...tokenFeeds(batch),
    weights: floatTensor('float64', batch.mask.map((m) => m / 10), dims),
    advantages: floatTensor('float64', Array.from({ length: n }, (_, i) => (i % 3 === 0 ? -1 : 0.7)), dims),
    old_logprobs: floatTensor('float64', new Array(n).fill(0), dims),
    ref_logprobs: floatTensor('float64', new Array(n).fill(0), dims),
    imitation_weights: floatTensor('float64', batch.mask.map((m, i) => (m === 0 && i % 2 === 0 ? 0.05 : 0)), dims),
    temperature: floatTensor('float64', [0.9], []),
    clip_low: floatTensor('float64', [0.2], []),
    clip_high: floatTensor('float64', [0.28], []),
    kl_beta: floatTensor('float64', [0.1], []),
    entropy_coef: floatTensor('float64', [0.01], []),
    // The exact KL's reference: another model of the same shape, fed under ref.<name> (ignored by the k3 graph).
    ...Object.fromEntries(Object.entries(weightFeeds(initWeights(config, 12, 0.3), 'float64')).map(([name, t]) => [`ref.${name}`, t])),
  };
  const keepInputs = () => Object.keys(feeds).forEach((name) => built.inputNames.includes(name) || delete feeds[name]);
  keepInputs();
  // Old and reference logprobs sit at fixed offsets from the current ones, so ratios land well inside
  // and well outside the clip range, never on its kinks.
  const current = (await graph.run(feeds, ['logprobs'])).logprobs;
  const offsets = [-0.6, -0.1, 0.05, 0.5];
  feeds.old_logprobs = floatTensor('float64', Array.from(current, (lp, i) => lp + offsets[i % 4]), dims);
  feeds.ref_logprobs = floatTensor('float64', Array.from(current, (lp) => lp + 0.3 * rng.normal()), dims);
  keepInputs();

  const analytic = await graph.run(feeds);
  const loss = async (): Promise<number> => (await graph.run(feeds, ['loss'])).loss[0];
  const step = 1e-5;
  let maxRelativeError = 0;
  let checked = 0;
  for (const name of built.trainableNames) {
    const x = feeds[name].data as Float64Array;
    const grad = analytic[gradName(name)];
    for (const i of [0, Math.floor(x.length / 2), x.length - 1, rng.int(x.length)]) {
      const saved = x[i];
      x[i] = saved + step;
      const plus = await loss();
      x[i] = saved - step;
      const minus = await loss();
      x[i] = saved;
      const numeric = (plus - minus) / (2 * step);
      // Central differences at step 1e-5 carry rounding noise of about eps·|loss|/step ≈ 1e-11 in absolute terms, so a
      // gradient element near zero (a k_proj bias, almost cancelled by the softmax) is compared with a floor of 1e-5.
      maxRelativeError = Math.max(maxRelativeError, Math.abs(grad[i] - numeric) / Math.max(Math.abs(grad[i]), Math.abs(numeric), 1e-5));
      checked++;
    }
  }
  const clippedTokens = analytic.clipped.reduce((a, b) => a + b, 0);
  await graph.session.release();
  return { maxRelativeError, checked, clippedTokens, gradNames: built.trainableNames };
}

describe('whole-model gradient of the clipped policy-gradient loss vs finite differences (float64)', () => {
  it('qwen3-micro: tied embeddings, qk-norm, grouped kv heads', async () => {
    const r = await checkModel(presetConfig('qwen3-micro'));
    expect(r.clippedTokens).toBeGreaterThan(0);
    expect(r.maxRelativeError).toBeLessThan(1e-5);
  });

  it('qwen3-micro, the graph in the GPU op set (a decomposed log-softmax at opset 20), with the exact KL', async () => {
    const r = await checkModel(presetConfig('qwen3-micro'), { opSet: 'gpu', klExact: true });
    expect(r.clippedTokens).toBeGreaterThan(0);
    expect(r.maxRelativeError).toBeLessThan(1e-5);
  });

  it('qwen2-style: q/k/v biases, no qk-norm', async () => {
    const r = await checkModel(presetConfig('qwen3-micro', { model_type: 'qwen2' }));
    expect(r.maxRelativeError).toBeLessThan(1e-5);
  });

  it('untied embeddings and a separate lm_head', async () => {
    const r = await checkModel(presetConfig('qwen3-micro', { tie_word_embeddings: false }));
    expect(r.maxRelativeError).toBeLessThan(1e-5);
  });

  it('head_dim different from hidden/heads, llama with o/mlp biases', async () => {
    const r = await checkModel(presetConfig('qwen3-micro', { model_type: 'llama', head_dim: 12, attention_bias: true, mlp_bias: true, num_key_value_heads: 1 }));
    expect(r.maxRelativeError).toBeLessThan(1e-5);
  });

  it('qwen3 with head_dim different from hidden/heads', async () => {
    const r = await checkModel(presetConfig('qwen3-micro', { head_dim: 24 }));
    expect(r.maxRelativeError).toBeLessThan(1e-5);
  });

  describe('with a LoRA adapter over the frozen base', () => {
    // B starts nonzero so A's gradient is not zero too (PEFT's B = 0 makes every ∂/∂A vanish at the first step).
    const lora = (extra: Record<string, unknown> = {}) => parseLoraConfig({ r: 3, alpha: 5, initStdB: 0.3, ...extra });

    it('all seven projections, qwen3-micro: gradients of the adapter alone, none for the base', async () => {
      const config = withAdapter(presetConfig('qwen3-micro'), lora());
      const r = await checkModel(config);
      expect(r.gradNames.length).toBe(2 * 7 * config.numLayers);
      expect(r.gradNames.every((name) => /\.lora_[AB]\.weight$/.test(name))).toBe(true);
      expect(r.maxRelativeError).toBeLessThan(1e-5);
    });

    it('q and v only, llama with biases and an untied head', async () => {
      const base = presetConfig('qwen3-micro', { model_type: 'llama', attention_bias: true, mlp_bias: true, tie_word_embeddings: false });
      const r = await checkModel(withAdapter(base, lora({ targetModules: ['q_proj', 'v_proj'] })));
      expect(r.gradNames.length).toBe(2 * 2 * base.numLayers);
      expect(r.maxRelativeError).toBeLessThan(1e-5);
    });
  });

  it('with the exact KL to a reference run in the graph (klExact): the dense KL gradient, the reference frozen', async () => {
    const r = await checkModel(presetConfig('qwen3-micro'), { klExact: true });
    expect(r.maxRelativeError).toBeLessThan(1e-5);
  });
});
