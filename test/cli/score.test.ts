import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { saveCheckpoint } from '../../native/io/checkpoint.ts';
import { randomModel } from '../support/models.ts';
import { logSoftmax, referenceLogits } from '../support/reference-model.ts';
import { runLudus } from '../support/cli.ts';
import { cudaAvailable } from '../../native/ort.ts';

const words = ['<eos>', 'the', 'cat', 'sat', 'on', 'mat', 'and', 'dog'];
const wordLevelTokenizer = {
  version: '1.0',
  added_tokens: [],
  normalizer: null,
  pre_tokenizer: { type: 'Whitespace' },
  post_processor: null,
  decoder: null,
  model: { type: 'WordLevel', vocab: Object.fromEntries(words.map((w, i) => [w, i])), unk_token: '<eos>' },
};

describe('ludus score', () => {
  const model = randomModel();
  let dir = '';
  /** The test model saved with some config.json fields replaced. */
  const checkpointWithConfig = async (overrides: Record<string, unknown>): Promise<string> => {
    const saved = join(await mkdtemp(join(tmpdir(), 'ludus-score-config-')), 'model');
    await saveCheckpoint(saved, model.config, model.weights);
    const config = JSON.parse(await readFile(join(saved, 'config.json'), 'utf8'));
    await writeFile(join(saved, 'config.json'), JSON.stringify({ ...config, ...overrides }));
    return saved;
  };
  beforeAll(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'ludus-score-')), 'model');
    await saveCheckpoint(dir, model.config, model.weights, { extraFiles: { 'tokenizer.json': JSON.stringify(wordLevelTokenizer) } });
  });

  describe('having --tokens and --json', () => {
    it('should print log p(token_i | tokens_<i) for every position, null first', async () => {
      const tokens = [3, 17, 42, 5, 9];
      const result = await runLudus(['score', '--model', dir, '--tokens', tokens.join(','), '--json']);
      expect(result.code).toBe(0);
      const out = JSON.parse(result.stdout) as { tokens: number[]; logprobs: (number | null)[] };
      expect(out.tokens).toEqual(tokens);
      expect(out.logprobs[0]).toBeNull();
      const logits = referenceLogits(model.config, model.weights, tokens);
      for (let i = 1; i < tokens.length; i++) expect(out.logprobs[i]).toBeCloseTo(logSoftmax(logits[i - 1])[tokens[i]], 4);
    });
  });

  describe('having --text and a tokenizer.json in the model directory', () => {
    it('should encode the text with that tokenizer and score it', async () => {
      const result = await runLudus(['score', '--model', dir, '--text', 'the cat sat on the mat', '--json']);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout).tokens).toEqual([1, 2, 3, 4, 1, 5]);
    });
  });

  describe('having a token outside the vocabulary', () => {
    it('should exit 2 with INPUT_INVALID naming the position', async () => {
      const result = await runLudus(['score', '--model', dir, '--tokens', '1,999']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('[INPUT_INVALID]');
      expect(result.stderr).toContain('position 1');
    });
  });

  describe('having a directory without a model', () => {
    it('should exit 2 with CHECKPOINT_MISSING_FILE', async () => {
      const result = await runLudus(['score', '--model', tmpdir(), '--tokens', '1,2']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('[CHECKPOINT_MISSING_FILE]');
    });
  });

  describe('having weights with a NaN', () => {
    it('should exit 2 with NON_FINITE naming the tensor, printing no scores', async () => {
      const poisoned = join(await mkdtemp(join(tmpdir(), 'ludus-score-nan-')), 'model');
      const weights = new Map([...model.weights].map(([name, t]) => [name, { dims: t.dims, data: Float32Array.from(t.data) }]));
      weights.get('model.layers.1.self_attn.o_proj.weight')!.data[3] = Number.NaN;
      await saveCheckpoint(poisoned, model.config, weights);
      const result = await runLudus(['score', '--model', poisoned, '--tokens', '1,2,3', '--json']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('[NON_FINITE]');
      expect(result.stderr).toContain('model.layers.1.self_attn.o_proj.weight');
      expect(result.stdout).toBe('');
    });
  });

  describe('having a config too large for memory', () => {
    it('should exit 2 with MEMORY_INSUFFICIENT before reading the weights', async () => {
      const huge = await checkpointWithConfig({ num_hidden_layers: 1_000_000, hidden_size: 4096, intermediate_size: 12288 });
      const result = await runLudus(['score', '--model', huge, '--tokens', '1,2,3', '--json']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('[MEMORY_INSUFFICIENT]');
    });
  });

  describe('having max_position_embeddings 1e9', () => {
    it('should score as with any other bound: nothing is sized by it', async () => {
      const long = await checkpointWithConfig({ max_position_embeddings: 1_000_000_000 });
      const tokens = [3, 17, 42, 5];
      const [a, b] = [await runLudus(['score', '--model', long, '--tokens', tokens.join(','), '--json']), await runLudus(['score', '--model', dir, '--tokens', tokens.join(','), '--json'])];
      expect(a.code).toBe(0);
      expect(JSON.parse(a.stdout).logprobs).toEqual(JSON.parse(b.stdout).logprobs);
    });
  });

  describe('having --device cuda', () => {
    it(cudaAvailable() ? 'should score on the GPU' : 'should fail with DEVICE_UNAVAILABLE saying how to install the CUDA binaries', async () => {
      const result = await runLudus(['score', '--model', dir, '--tokens', '1,2,3', '--device', 'cuda', '--json']);
      if (cudaAvailable()) {
        expect(result.code).toBe(0);
      } else {
        expect(result.code).toBe(2);
        expect(result.stderr).toContain('[DEVICE_UNAVAILABLE]');
        expect(result.stderr).toContain('ONNXRUNTIME_NODE_INSTALL=cuda12');
      }
    });
  });
});
