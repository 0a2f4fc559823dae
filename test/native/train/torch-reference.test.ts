import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveCheckpoint } from '../../../native/io/checkpoint.ts';
import type { ModelConfig } from '../../../native/model/config.ts';
import { initWeights, presetConfig } from '../../../native/model/presets.ts';
import { buildTrainGraph, gradName } from '../../../native/train/train-graph.ts';
import { saveAdapter } from '../../../native/io/adapter.ts';
import { initAdapter, withAdapter } from '../../../native/model/lora.ts';
import { parseLoraConfig } from '../../../native/model/lora-config.ts';
import type { Weights } from '../../../native/model/weights.ts';
import { describeNeeding, PYTHON, pythonMissing } from '../../support/optional.ts';
import { floatTensor, openGraph, randomBatch, tokenFeeds, weightFeeds } from './fixtures.ts';

/**
 * Our float64 train graph against tools/python/qwen3_reference.py (the decoder as transformers computes
 * it, in PyTorch) on the same checkpoint and batch: loss, per-token outputs and every gradient. Needs a python that
 * imports torch (test/support/optional.ts: required under CI=true, a reported skip elsewhere).
 */
const SCRIPT = join(import.meta.dirname, '../../../tools/python/qwen3_reference.py');

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ludus-torch-ref-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function compare(label: string, config: ModelConfig, adapter?: Record<string, unknown>): Promise<void> {
  const baseWeights = initWeights(config, 17, 0.25);
  const checkpoint = join(dir, label);
  await saveCheckpoint(checkpoint, config, baseWeights);
  let weights: Weights = baseWeights;
  const adapterArgs: string[] = [];
  if (adapter) {
    // The adapter travels to PyTorch as PEFT saves it; B starts nonzero so every adapter gradient is nonzero.
    config = withAdapter(config, parseLoraConfig({ initStdB: 0.3, ...adapter }));
    const lora = initAdapter(config, 19);
    weights = lora;
    await saveAdapter(join(dir, `${label}-adapter`), config, new Map([...baseWeights, ...lora]));
    adapterArgs.push('--adapter', join(dir, `${label}-adapter`));
  }
  const batch = randomBatch(config, [6, 3], 6, 5);
  const n = batch.rows * batch.cols;
  const request = {
    objective: 'policy-gradient',
    rows: batch.rows,
    cols: batch.cols,
    input_ids: batch.inputIds,
    targets: batch.targets,
    weights: batch.mask.map((m) => m / 9),
    advantages: Array.from({ length: n }, (_, i) => (i % 2 ? 0.8 : -1.1)),
    old_logprobs: Array.from({ length: n }, (_, i) => -4.3 + 0.4 * Math.sin(i)),
    ref_logprobs: Array.from({ length: n }, (_, i) => -4.1 + 0.2 * Math.cos(i)),
    // λ_jun's imitation term on positions the policy-gradient mask leaves out.
    imitation_weights: batch.mask.map((m, i) => (m === 0 && i % 2 === 0 ? 0.07 : 0)),
    clip_low: 0.2,
    clip_high: 0.28,
    kl_beta: 0.05,
    entropy_coef: 0.01,
    temperature: 0.9,
  };
  const requestPath = join(dir, `${label}.request.json`);
  const outPath = join(dir, `${label}.out.json`);
  await writeFile(requestPath, JSON.stringify(request));
  const torchRun = promisify(execFile)(PYTHON, [SCRIPT, 'evaluate', '--checkpoint', checkpoint, '--request', requestPath, '--out', outPath, '--dtype', 'float64', ...adapterArgs]);

  const graph = await openGraph(buildTrainGraph(config, { objective: 'policy-gradient', dtype: 'float64' }));
  const dims = [batch.rows, batch.cols];
  const ours = await graph.run({
    ...weightFeeds(baseWeights, 'float64'),
    ...weightFeeds(weights, 'float64'),
    ...tokenFeeds(batch),
    weights: floatTensor('float64', request.weights, dims),
    advantages: floatTensor('float64', request.advantages, dims),
    old_logprobs: floatTensor('float64', request.old_logprobs, dims),
    ref_logprobs: floatTensor('float64', request.ref_logprobs, dims),
    imitation_weights: floatTensor('float64', request.imitation_weights, dims),
    temperature: floatTensor('float64', [request.temperature], []),
    clip_low: floatTensor('float64', [request.clip_low], []),
    clip_high: floatTensor('float64', [request.clip_high], []),
    kl_beta: floatTensor('float64', [request.kl_beta], []),
    entropy_coef: floatTensor('float64', [request.entropy_coef], []),
  });
  await graph.session.release();
  await torchRun;
  const theirs = JSON.parse(await readFile(outPath, 'utf8')) as Record<string, number[]>;

  expect(ours.loss[0]).toBeCloseTo(theirs.loss[0], 10);
  for (const name of ['logprobs', 'entropy', 'kl', 'clipped']) {
    theirs[name].forEach((value, i) => expect(ours[name][i]).toBeCloseTo(value, 9));
  }
  expect(Object.keys(theirs).filter((k) => k.startsWith('grad.')).sort()).toEqual([...weights.keys()].map(gradName).sort());
  for (const name of weights.keys()) {
    const expected = theirs[gradName(name)];
    const got = ours[gradName(name)];
    const scale = Math.max(...expected.map(Math.abs));
    let worst = 0;
    expected.forEach((value, i) => (worst = Math.max(worst, Math.abs(got[i] - value))));
    expect(worst / scale, name).toBeLessThan(1e-9);
  }
}

describeNeeding('PyTorch', pythonMissing(['torch', 'numpy']), 'agreement with the PyTorch reference in float64', () => {
  it('qwen3-micro: tied embeddings, qk-norm, grouped kv heads', () => compare('qwen3', presetConfig('qwen3-micro')));
  it('qwen2-style with q/k/v biases and an untied lm_head', () =>
    compare('qwen2', presetConfig('qwen3-micro', { model_type: 'qwen2', tie_word_embeddings: false })));
  it('llama with o/mlp biases, head_dim 12 and one kv head', () =>
    compare('llama', presetConfig('qwen3-micro', { model_type: 'llama', head_dim: 12, attention_bias: true, mlp_bias: true, num_key_value_heads: 1 })));
  it('a LoRA adapter saved in PEFT\'s layout over a frozen qwen3-micro: the adapter\'s gradients alone', () =>
    compare('qwen3-lora', presetConfig('qwen3-micro'), { r: 3, alpha: 7 }));
  it('a LoRA adapter on q, v and down over llama with biases', () =>
    compare('llama-lora', presetConfig('qwen3-micro', { model_type: 'llama', attention_bias: true, mlp_bias: true }), { r: 2, targetModules: ['q_proj', 'v_proj', 'down_proj'] }));
});
