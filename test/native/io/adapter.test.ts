import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE, loadAdapter, mergeAdapterCheckpoint, PEFT_PREFIX, saveAdapter } from '../../../native/io/adapter.ts';
import { loadCheckpoint, saveCheckpoint } from '../../../native/io/checkpoint.ts';
import { Scorer } from '../../../native/runtime/scorer.ts';
import { readSafetensors, writeSafetensors } from '../../../native/io/safetensors.ts';
import { adaptedWeights, adapterShapes, initAdapter, withAdapter } from '../../../native/model/lora.ts';
import { parseLoraConfig } from '../../../native/model/lora-config.ts';
import { presetConfig } from '../../../native/model/presets.ts';
import { LudusError, type LudusErrorCode } from '../../../core/errors.ts';
import { randomModel } from '../../support/models.ts';
import { describeNeeding, PYTHON, pythonMissing } from '../../support/optional.ts';

const SCRIPT = join(import.meta.dirname, '../../../tools/python/qwen3_reference.py');

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ludus-adapter-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const { config: base, weights } = randomModel({ model_type: 'llama', attention_bias: true }, 3);
const adapted = withAdapter(base, parseLoraConfig({ r: 4, alpha: 12, targetModules: ['q_proj', 'k_proj', 'gate_proj', 'down_proj'], initStdB: 0.1 }));
const adapter = initAdapter(adapted, 5);

async function expectCode(promise: Promise<unknown>, code: LudusErrorCode, mention: string): Promise<void> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(LudusError.is(error, code), String(error)).toBe(true);
  expect((error as Error).message).toContain(mention);
}

describe('adapters in PEFT\'s layout', () => {
  it('round-trips: adapter_config.json with PEFT\'s fields, tensors under PEFT\'s names, the same values back', async () => {
    const out = join(dir, 'roundtrip');
    await saveAdapter(out, adapted, adaptedWeights(weights, adapter), { baseModel: 'models/micro' });
    const written = JSON.parse(await readFile(join(out, ADAPTER_CONFIG_FILE), 'utf8')) as Record<string, unknown>;
    expect(written).toMatchObject({ peft_type: 'LORA', r: 4, lora_alpha: 12, lora_dropout: 0, target_modules: ['down_proj', 'gate_proj', 'k_proj', 'q_proj'], base_model_name_or_path: 'models/micro' });
    const stored = (await readSafetensors(join(out, ADAPTER_WEIGHTS_FILE))).tensors;
    expect([...stored.keys()].sort()).toEqual([...adapterShapes(adapted).keys()].map((n) => `${PEFT_PREFIX}${n}`).sort());
    expect(stored.has(`${PEFT_PREFIX}model.layers.1.mlp.down_proj.lora_B.weight`)).toBe(true);
    const loaded = await loadAdapter(out, base, { baseModel: 'models/micro' });
    expect(loaded.lora).toEqual({ ...adapted.lora, initStdB: 0 });
    expect([...loaded.weights.keys()].sort()).toEqual([...adapter.keys()].sort());
    for (const [name, t] of adapter) expect(loaded.weights.get(name)!.data, name).toEqual(t.data);
  });

  describe('refusing an adapter that does not fit', () => {
    const variant = async (label: string, edit: (config: Record<string, unknown>, tensors: Map<string, { dims: number[]; data: Float32Array }>) => void): Promise<string> => {
      const out = join(dir, label);
      await saveAdapter(out, adapted, adaptedWeights(weights, adapter));
      const config = JSON.parse(await readFile(join(out, ADAPTER_CONFIG_FILE), 'utf8')) as Record<string, unknown>;
      const tensors = (await readSafetensors(join(out, ADAPTER_WEIGHTS_FILE))).tensors;
      edit(config, tensors);
      await writeFile(join(out, ADAPTER_CONFIG_FILE), JSON.stringify(config));
      await writeSafetensors(join(out, ADAPTER_WEIGHTS_FILE), tensors);
      return out;
    };

    it('a rank that differs from its tensors: ADAPTER_RANK_MISMATCH naming the tensor', async () => {
      const out = await variant('rank', (c) => (c.r = 8));
      await expectCode(loadAdapter(out, base), 'ADAPTER_RANK_MISMATCH', 'lora_A.weight" has rank 4');
    });

    it('tensors of a projection target_modules does not list: ADAPTER_TARGET_MISMATCH', async () => {
      const out = await variant('targets-fewer', (c) => (c.target_modules = ['q_proj', 'k_proj', 'gate_proj']));
      await expectCode(loadAdapter(out, base), 'ADAPTER_TARGET_MISMATCH', 'wraps down_proj');
    });

    it('a target with no tensors: ADAPTER_TARGET_MISMATCH naming the missing tensor', async () => {
      const out = await variant('targets-more', (c) => (c.target_modules = ['q_proj', 'k_proj', 'gate_proj', 'down_proj', 'v_proj']));
      await expectCode(loadAdapter(out, base), 'ADAPTER_TARGET_MISMATCH', 'v_proj.lora_A.weight" is missing');
    });

    it('a base of other dimensions: ADAPTER_BASE_MISMATCH', async () => {
      const out = join(dir, 'other-base');
      await saveAdapter(out, adapted, adaptedWeights(weights, adapter));
      await expectCode(loadAdapter(out, presetConfig('qwen3-micro', { hidden_size: 48 })), 'ADAPTER_BASE_MISMATCH', 'made for another model');
      await expectCode(loadAdapter(out, presetConfig('qwen3-micro', { num_hidden_layers: 1 })), 'ADAPTER_BASE_MISMATCH', 'the base has 1 layers');
    });

    it('a different recorded base: ADAPTER_BASE_MISMATCH naming both', async () => {
      const out = join(dir, 'named-base');
      await saveAdapter(out, adapted, adaptedWeights(weights, adapter), { baseModel: 'Qwen/Qwen3-0.6B' });
      await expectCode(loadAdapter(out, base, { baseModel: 'Qwen/Qwen3-1.7B' }), 'ADAPTER_BASE_MISMATCH', '"Qwen/Qwen3-0.6B", not on "Qwen/Qwen3-1.7B"');
    });

    it('DoRA or rsLoRA: CONFIG_INVALID naming the field', async () => {
      const out = await variant('dora', (c) => (c.use_dora = true));
      await expectCode(loadAdapter(out, base), 'CONFIG_INVALID', 'use_dora');
    });
  });

  describeNeeding('PyTorch', pythonMissing(['torch', 'numpy']), 'with PyTorch', () => {
    it('loads an adapter PyTorch wrote in PEFT\'s layout, with the values it stored', async () => {
      const checkpoint = join(dir, 'torch-base');
      await saveCheckpoint(checkpoint, base, weights);
      const out = join(dir, 'torch-adapter');
      const { stdout } = await promisify(execFile)(PYTHON, [SCRIPT, 'write-adapter', '--checkpoint', checkpoint, '--out', out, '--r', '3', '--alpha', '6', '--targets', 'q_proj,o_proj,up_proj']);
      const sums = JSON.parse(stdout) as Record<string, number>;
      const loaded = await loadAdapter(out, base, { baseModel: checkpoint });
      expect(loaded.lora).toMatchObject({ r: 3, alpha: 6, targetModules: ['q_proj', 'o_proj', 'up_proj'] });
      expect(Object.keys(sums).sort()).toEqual([...loaded.weights.keys()].map((n) => `${PEFT_PREFIX}${n}`).sort());
      for (const [name, t] of loaded.weights) expect(t.data.reduce((a, b) => a + b, 0)).toBeCloseTo(sums[`${PEFT_PREFIX}${name}`], 4);
    });
  });
});

describe('merging an adapter into its base (ludus merge)', () => {
  it('writes a plain checkpoint that scores as base + adapter does', async () => {
    const baseDir = join(dir, 'merge-base');
    const adapterDir = join(dir, 'merge-adapter');
    const outDir = join(dir, 'merged');
    await saveCheckpoint(baseDir, base, weights);
    await saveAdapter(adapterDir, adapted, adaptedWeights(weights, adapter));
    await mergeAdapterCheckpoint(baseDir, adapterDir, outDir);
    const merged = await loadCheckpoint(outDir);
    expect(merged.config.lora).toBeUndefined();
    const sequence = [[4, 9, 33, 2, 17, 8]];
    const plain = await Scorer.create({ name: 'merged', config: merged.config, weights: merged.weights, tokenizerHash: 't' }, { threads: 1 });
    const withAdapterScorer = await Scorer.create({ name: 'adapted', config: adapted, weights: adaptedWeights(weights, adapter), tokenizerHash: 't' }, { threads: 1 });
    const [a] = await plain.score(sequence);
    const [b] = await withAdapterScorer.score(sequence);
    await plain.release();
    await withAdapterScorer.release();
    for (let t = 1; t < sequence[0].length; t++) expect(a.logprobs[t]).toBeCloseTo(b.logprobs[t]!, 4);
    expect(merged.weights.get('model.layers.0.self_attn.q_proj.weight')!.data).not.toEqual(weights.get('model.layers.0.self_attn.q_proj.weight')!.data);
    expect(merged.weights.get('model.layers.0.self_attn.v_proj.weight')!.data).toEqual(weights.get('model.layers.0.self_attn.v_proj.weight')!.data);
  });
});
