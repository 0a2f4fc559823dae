import { mkdir, mkdtemp, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LudusError, type LudusErrorCode } from '../../../core/errors.ts';
import { loadCheckpoint, saveCheckpoint } from '../../../native/io/checkpoint.ts';
import { replaceDirectory } from '../../../native/io/files.ts';
import { readSafetensors, readSafetensorsHeader, writeSafetensors } from '../../../native/io/safetensors.ts';
import { toHfConfig, type ModelConfig } from '../../../native/model/config.ts';
import { weightShapes, type Weights } from '../../../native/model/weights.ts';
import { randomModel, VARIANTS } from '../../support/models.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ludus-checkpoint-'));
});
afterAll(async () => rm(root, { recursive: true, force: true }));

let dirCounter = 0;
const freshDir = () => join(root, `ckpt${++dirCounter}`);

function expectSameWeights(actual: Weights, expected: Weights): void {
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [name, tensor] of expected) {
    expect(actual.get(name)!.dims, name).toEqual(tensor.dims);
    expect(Buffer.from(actual.get(name)!.data.buffer).equals(Buffer.from(tensor.data.buffer)), name).toBe(true);
  }
}

async function failureOf(promise: Promise<unknown>): Promise<LudusError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(LudusError);
  return error as LudusError;
}

async function expectLoadFailure(dir: string, code: LudusErrorCode, mentions: string[]): Promise<void> {
  const error = await failureOf(loadCheckpoint(dir));
  expect(error.code).toBe(code);
  for (const text of mentions) expect(error.message).toContain(text);
}

/** Saves a random model, then lets `edit` rewrite model.safetensors' tensors to make the checkpoint wrong. */
async function checkpointWithTensors(edit: (weights: Weights, config: ModelConfig) => void, overrides: Record<string, unknown> = {}): Promise<string> {
  const dir = freshDir();
  const { config, weights } = randomModel(overrides);
  await saveCheckpoint(dir, config, weights);
  const stored = (await readSafetensors(join(dir, 'model.safetensors'))).tensors;
  edit(stored, config);
  await writeSafetensors(join(dir, 'model.safetensors'), stored);
  return dir;
}

/** The checkpoint directory and any temporary siblings saveCheckpoint made for it. */
async function siblingsOf(dir: string): Promise<string[]> {
  const base = basename(dir);
  return (await readdir(join(dir, '..'))).filter((name) => name === base || name.startsWith(`.${base}.`));
}

describe('saveCheckpoint then loadCheckpoint', () => {
  for (const [variant, overrides] of Object.entries(VARIANTS)) {
    describe(`having a ${variant} model`, () => {
      it('should give back the config and every weight bit for bit', async () => {
        const dir = freshDir();
        const { config, weights } = randomModel(overrides);
        await saveCheckpoint(dir, config, weights);
        const loaded = await loadCheckpoint(dir);
        expect({ ...loaded.config, raw: undefined }).toEqual({ ...config, raw: undefined });
        expectSameWeights(loaded.weights, weights);
      });
    });
  }

  describe('having a small model', () => {
    it('should write config.json, generation_config.json and model.safetensors as transformers lays them out', async () => {
      const dir = freshDir();
      const { config, weights } = randomModel();
      await saveCheckpoint(dir, config, weights);
      expect((await readdir(dir)).sort()).toEqual(['config.json', 'generation_config.json', 'model.safetensors']);
      const configText = await readFile(join(dir, 'config.json'), 'utf8');
      const written = JSON.parse(configText);
      expect(Object.keys(written)).toEqual(Object.keys(written).sort());
      expect(written).toMatchObject({ architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3', torch_dtype: 'float32', tie_word_embeddings: true });
      expect(JSON.parse(await readFile(join(dir, 'generation_config.json'), 'utf8'))).toEqual({ _from_model_config: true, eos_token_id: 0 });
      const header = await readSafetensorsHeader(join(dir, 'model.safetensors'));
      expect(header.metadata).toEqual({ format: 'pt' });
      expect(header.entries.map((e) => e.name).sort()).toEqual([...weightShapes(config).keys()].sort());
    });

    it('should leave no temporary directory beside the checkpoint', async () => {
      const dir = freshDir();
      const { config, weights } = randomModel();
      await saveCheckpoint(dir, config, weights);
      await saveCheckpoint(dir, config, weights);
      expect(await siblingsOf(dir)).toEqual([basename(dir)]);
    });
  });

  describe('having a shard size smaller than the model', () => {
    const shardBytes = 20_000;

    it('should write numbered shards under the size and an index mapping every tensor', async () => {
      const dir = freshDir();
      const { config, weights } = randomModel({ tie_word_embeddings: false });
      await saveCheckpoint(dir, config, weights, { shardBytes });
      const files = (await readdir(dir)).sort();
      const shards = files.filter((f) => f.endsWith('.safetensors'));
      expect(shards.length).toBeGreaterThan(1);
      shards.forEach((name, i) => expect(name).toBe(`model-${String(i + 1).padStart(5, '0')}-of-${String(shards.length).padStart(5, '0')}.safetensors`));
      expect(files).toContain('model.safetensors.index.json');
      expect(files).not.toContain('model.safetensors');
      const index = JSON.parse(await readFile(join(dir, 'model.safetensors.index.json'), 'utf8'));
      expect(Object.keys(index.weight_map).sort()).toEqual([...weightShapes(config).keys()].sort());
      let total = 0;
      for (const shard of shards) {
        const header = await readSafetensorsHeader(join(dir, shard));
        const bytes = header.entries.reduce((sum, e) => sum + e.end - e.begin, 0);
        expect(bytes <= shardBytes || header.entries.length === 1).toBe(true);
        for (const e of header.entries) expect(index.weight_map[e.name]).toBe(shard);
        total += bytes;
      }
      expect(index.metadata.total_size).toBe(total);
    });

    it('should load the shards back bit for bit', async () => {
      const dir = freshDir();
      const { config, weights } = randomModel({ tie_word_embeddings: false });
      await saveCheckpoint(dir, config, weights, { shardBytes });
      expectSameWeights((await loadCheckpoint(dir)).weights, weights);
    });
  });

  describe('having BF16 storage asked for', () => {
    it('should record bfloat16 in config.json and load values within BF16 rounding', async () => {
      const dir = freshDir();
      const { config, weights } = randomModel();
      await saveCheckpoint(dir, config, weights, { dtype: 'BF16' });
      expect(JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')).torch_dtype).toBe('bfloat16');
      const loaded = await loadCheckpoint(dir);
      for (const [name, tensor] of weights) {
        const back = loaded.weights.get(name)!.data;
        for (let i = 0; i < tensor.data.length; i++) expect(Math.abs(back[i] - tensor.data[i])).toBeLessThanOrEqual(Math.abs(tensor.data[i]) * 2 ** -8);
      }
    });
  });

  describe('having extra files to place beside the weights', () => {
    it('should write them into the checkpoint', async () => {
      const dir = freshDir();
      const { config, weights } = randomModel();
      await saveCheckpoint(dir, config, weights, { extraFiles: { 'tokenizer.json': '{"model":{}}', 'blob.bin': new Uint8Array([1, 2, 3]) } });
      expect(await readFile(join(dir, 'tokenizer.json'), 'utf8')).toBe('{"model":{}}');
      expect([...(await readFile(join(dir, 'blob.bin')))]).toEqual([1, 2, 3]);
    });

    it('should refuse names saveCheckpoint writes itself or paths outside the directory', async () => {
      const { config, weights } = randomModel();
      for (const name of ['config.json', 'model.safetensors', '../escape.json']) {
        const error = await failureOf(saveCheckpoint(freshDir(), config, weights, { extraFiles: { [name]: '{}' } }));
        expect(error.code).toBe('INPUT_INVALID');
      }
    });
  });
});

describe('saveCheckpoint', () => {
  describe('having an existing checkpoint at the path', () => {
    it('should replace it whole, dropping files of the old layout', async () => {
      const dir = freshDir();
      const first = randomModel({}, 1);
      await saveCheckpoint(dir, first.config, first.weights, { shardBytes: 20_000 });
      const second = randomModel({}, 2);
      await saveCheckpoint(dir, second.config, second.weights);
      expect((await readdir(dir)).sort()).toEqual(['config.json', 'generation_config.json', 'model.safetensors']);
      expectSameWeights((await loadCheckpoint(dir)).weights, second.weights);
    });
  });

  describe('having weights that do not fit the config', () => {
    it('should fail before touching the existing checkpoint', async () => {
      const dir = freshDir();
      const { config, weights } = randomModel();
      await saveCheckpoint(dir, config, weights);
      const broken = new Map(weights);
      broken.delete('model.norm.weight');
      const error = await failureOf(saveCheckpoint(dir, config, broken));
      expect(error.code).toBe('CHECKPOINT_TENSOR_MISSING');
      expectSameWeights((await loadCheckpoint(dir)).weights, weights);
      expect(await siblingsOf(dir)).toEqual([basename(dir)]);
    });

    it('should refuse a tensor the config does not imply', async () => {
      const { config, weights } = randomModel();
      const extra = new Map(weights).set('lm_head.weight', weights.get('model.embed_tokens.weight')!);
      const error = await failureOf(saveCheckpoint(freshDir(), config, extra));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toContain('"lm_head.weight"');
    });
  });

  describe('having a non-empty directory without config.json at the path', () => {
    it('should refuse to replace it and leave it as it was', async () => {
      const dir = freshDir();
      await mkdir(dir);
      await writeFile(join(dir, 'notes.txt'), 'keep me');
      const { config, weights } = randomModel();
      const error = await failureOf(saveCheckpoint(dir, config, weights));
      expect(error.code).toBe('INPUT_INVALID');
      expect(await readdir(dir)).toEqual(['notes.txt']);
    });
  });

  describe('having an empty directory at the path', () => {
    it('should write the checkpoint there', async () => {
      const dir = freshDir();
      await mkdir(dir);
      const { config, weights } = randomModel();
      await saveCheckpoint(dir, config, weights);
      expectSameWeights((await loadCheckpoint(dir)).weights, weights);
    });
  });
});

describe('loadCheckpoint', () => {
  describe('having no config.json', () => {
    it('should fail with CHECKPOINT_MISSING_FILE saying it is not a model directory', async () => {
      const dir = freshDir();
      await mkdir(dir);
      await expectLoadFailure(dir, 'CHECKPOINT_MISSING_FILE', [`${dir}: not a model directory (no config.json)`]);
    });
  });

  describe('having a directory that does not exist', () => {
    it('should fail with CHECKPOINT_MISSING_FILE saying it is not a model directory', async () => {
      const dir = freshDir();
      await expectLoadFailure(dir, 'CHECKPOINT_MISSING_FILE', [`${dir}: not a model directory (no such directory)`]);
    });
  });

  describe('having a directory where model.safetensors should be', () => {
    it('should fail with SAFETENSORS_MALFORMED naming it', async () => {
      const dir = await checkpointWithTensors(() => undefined);
      await unlink(join(dir, 'model.safetensors'));
      await mkdir(join(dir, 'model.safetensors'));
      await expectLoadFailure(dir, 'SAFETENSORS_MALFORMED', [`${join(dir, 'model.safetensors')}: not a file`]);
    });
  });

  describe('having a save interrupted between its two renames (only the complete new copy beside it)', () => {
    it('should load the new copy', async () => {
      const dir = freshDir();
      const { config, weights } = randomModel();
      await saveCheckpoint(dir, config, weights);
      await rename(dir, join(dir, '..', `.${basename(dir)}.next`));
      expectSameWeights((await loadCheckpoint(dir)).weights, weights);
    });
  });

  describe('having a config.json that is not JSON', () => {
    it('should fail with CONFIG_INVALID naming config.json', async () => {
      const dir = await checkpointWithTensors(() => undefined);
      await writeFile(join(dir, 'config.json'), '{"model_type": "qwen3",');
      await expectLoadFailure(dir, 'CONFIG_INVALID', [join(dir, 'config.json')]);
    });
  });

  describe('having an unsupported model_type', () => {
    it('should fail with MODEL_TYPE_UNSUPPORTED', async () => {
      const dir = await checkpointWithTensors(() => undefined);
      const { config } = randomModel();
      await writeFile(join(dir, 'config.json'), JSON.stringify({ ...toHfConfig(config), model_type: 'gpt2' }));
      await expectLoadFailure(dir, 'MODEL_TYPE_UNSUPPORTED', ['gpt2', join(dir, 'config.json')]);
    });
  });

  describe('having neither model.safetensors nor an index', () => {
    it('should fail with CHECKPOINT_MISSING_FILE', async () => {
      const dir = await checkpointWithTensors(() => undefined);
      await unlink(join(dir, 'model.safetensors'));
      await expectLoadFailure(dir, 'CHECKPOINT_MISSING_FILE', ['model.safetensors']);
    });
  });

  describe('having a tensor missing', () => {
    it('should fail with CHECKPOINT_TENSOR_MISSING naming the tensor', async () => {
      const dir = await checkpointWithTensors((w) => w.delete('model.layers.1.mlp.up_proj.weight'));
      await expectLoadFailure(dir, 'CHECKPOINT_TENSOR_MISSING', ['"model.layers.1.mlp.up_proj.weight"']);
    });
  });

  describe('having a tensor of the wrong shape for the config', () => {
    it('should fail with CHECKPOINT_TENSOR_SHAPE naming the tensor', async () => {
      const dir = await checkpointWithTensors((w) => w.set('model.layers.0.self_attn.k_norm.weight', { dims: [8], data: new Float32Array(8) }));
      await expectLoadFailure(dir, 'CHECKPOINT_TENSOR_SHAPE', ['"model.layers.0.self_attn.k_norm.weight"', '[8]', '[16]']);
    });
  });

  describe('having a tensor the config does not imply', () => {
    it('should fail with CONFIG_INVALID naming the tensor', async () => {
      const dir = await checkpointWithTensors((w) => w.set('model.layers.2.input_layernorm.weight', { dims: [32], data: new Float32Array(32) }));
      await expectLoadFailure(dir, 'CONFIG_INVALID', ['"model.layers.2.input_layernorm.weight"']);
    });
  });

  describe('having tied embeddings and a stored lm_head.weight', () => {
    it('should ignore the stored lm_head.weight', async () => {
      const dir = await checkpointWithTensors((w) => w.set('lm_head.weight', { dims: [64, 32], data: new Float32Array(64 * 32) }));
      const { weights } = await loadCheckpoint(dir);
      expect(weights.has('lm_head.weight')).toBe(false);
    });
  });

  describe('having untied embeddings and no lm_head.weight', () => {
    it('should fail with CHECKPOINT_TENSOR_MISSING naming lm_head.weight', async () => {
      const dir = await checkpointWithTensors((w) => w.delete('lm_head.weight'), { tie_word_embeddings: false });
      await expectLoadFailure(dir, 'CHECKPOINT_TENSOR_MISSING', ['"lm_head.weight"']);
    });
  });

  describe('having rotary inv_freq buffers stored', () => {
    it('should ignore them', async () => {
      const dir = await checkpointWithTensors((w) => {
        w.set('model.rotary_emb.inv_freq', { dims: [8], data: new Float32Array(8) });
        w.set('model.layers.0.self_attn.rotary_emb.inv_freq', { dims: [8], data: new Float32Array(8) });
      });
      const { weights, config } = await loadCheckpoint(dir);
      expect([...weights.keys()].sort()).toEqual([...weightShapes(config).keys()].sort());
    });
  });

  describe('having a malformed model.safetensors', () => {
    it('should fail with SAFETENSORS_MALFORMED naming the file', async () => {
      const dir = await checkpointWithTensors(() => undefined);
      await writeFile(join(dir, 'model.safetensors'), new Uint8Array(4));
      await expectLoadFailure(dir, 'SAFETENSORS_MALFORMED', [join(dir, 'model.safetensors')]);
    });
  });

  describe('having shards', () => {
    async function shardedCheckpoint(): Promise<{ dir: string; index: { weight_map: Record<string, string> }; shards: string[] }> {
      const dir = freshDir();
      const { config, weights } = randomModel({ tie_word_embeddings: false });
      await saveCheckpoint(dir, config, weights, { shardBytes: 20_000 });
      const index = JSON.parse(await readFile(join(dir, 'model.safetensors.index.json'), 'utf8'));
      return { dir, index, shards: [...new Set<string>(Object.values(index.weight_map))].sort() };
    }

    describe('having a shard file missing', () => {
      it('should fail with CHECKPOINT_MISSING_FILE naming the shard', async () => {
        const { dir, shards } = await shardedCheckpoint();
        await unlink(join(dir, shards[1]));
        await expectLoadFailure(dir, 'CHECKPOINT_MISSING_FILE', [join(dir, shards[1])]);
      });
    });

    describe('having the index list a tensor its shard does not hold', () => {
      it('should fail with CHECKPOINT_TENSOR_MISSING naming the tensor and the shard', async () => {
        const { dir, index, shards } = await shardedCheckpoint();
        const elsewhere = shards.find((shard) => shard !== index.weight_map['model.norm.weight'])!;
        index.weight_map['model.norm.weight'] = elsewhere;
        await writeFile(join(dir, 'model.safetensors.index.json'), JSON.stringify(index));
        await expectLoadFailure(dir, 'CHECKPOINT_TENSOR_MISSING', ['"model.norm.weight"', join(dir, elsewhere)]);
      });
    });

    describe('having an index that is not JSON', () => {
      it('should fail with SAFETENSORS_MALFORMED naming the index', async () => {
        const { dir } = await shardedCheckpoint();
        await writeFile(join(dir, 'model.safetensors.index.json'), '{"weight_map": ');
        await expectLoadFailure(dir, 'SAFETENSORS_MALFORMED', ['model.safetensors.index.json']);
      });
    });

    describe('having an index that points outside the directory', () => {
      it('should fail with SAFETENSORS_MALFORMED naming the tensor', async () => {
        const { dir, index } = await shardedCheckpoint();
        index.weight_map['model.norm.weight'] = '../elsewhere.safetensors';
        await writeFile(join(dir, 'model.safetensors.index.json'), JSON.stringify(index));
        await expectLoadFailure(dir, 'SAFETENSORS_MALFORMED', ['"model.norm.weight"']);
      });
    });
  });
});

describe('loadCheckpoint on bad values and sizes', () => {
  describe('having a NaN or an infinity in a tensor', () => {
    for (const [label, value] of [['NaN', Number.NaN], ['+Inf', Number.POSITIVE_INFINITY]] as const) {
      it(`should fail with NON_FINITE naming the tensor and index (${label})`, async () => {
        const dir = await checkpointWithTensors((w) => {
          w.get('model.layers.0.mlp.down_proj.weight')!.data[17] = value;
        });
        await expectLoadFailure(dir, 'NON_FINITE', ['"model.layers.0.mlp.down_proj.weight"', 'index 17']);
      });
    }
  });

  describe('having an eos_token_id outside the vocabulary', () => {
    it('should fail with CONFIG_INVALID naming the field', async () => {
      const dir = await checkpointWithTensors(() => undefined);
      const { config } = randomModel();
      await writeFile(join(dir, 'config.json'), JSON.stringify({ ...toHfConfig(config), eos_token_id: [0, config.vocabSize] }));
      await expectLoadFailure(dir, 'CONFIG_INVALID', ['eos_token_id', String(config.vocabSize)]);
    });
  });

  describe('having a config whose weights cannot fit in any memory (terabytes)', () => {
    for (const overrides of [{ num_hidden_layers: 1_000_000, hidden_size: 1024, intermediate_size: 3072 }, { hidden_size: 1_000_000, intermediate_size: 4_000_000 }]) {
      it(`should fail with MEMORY_INSUFFICIENT from the config alone, before reading any tensor (${JSON.stringify(overrides)})`, async () => {
        const dir = await checkpointWithTensors(() => undefined);
        const { config } = randomModel();
        await writeFile(join(dir, 'config.json'), JSON.stringify({ ...toHfConfig(config), ...overrides }));
        await unlink(join(dir, 'model.safetensors'));
        await expectLoadFailure(dir, 'MEMORY_INSUFFICIENT', [join(dir, 'config.json'), 'GiB']);
      });
    }
  });
});

describe('replaceDirectory', () => {
  describe('having the new contents fail half-way', () => {
    it('should keep the old directory and remove the temporary one', async () => {
      const dir = freshDir();
      await mkdir(dir);
      await writeFile(join(dir, 'old.txt'), 'old');
      const failing = replaceDirectory(dir, async (temp) => {
        await writeFile(join(temp, 'new.txt'), 'new');
        throw new Error('disk full');
      });
      await expect(failing).rejects.toThrow('disk full');
      expect(await readdir(dir)).toEqual(['old.txt']);
      expect(await siblingsOf(dir)).toEqual([basename(dir)]);
    });
  });
});
