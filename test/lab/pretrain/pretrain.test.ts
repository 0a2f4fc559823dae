import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCheckpoint } from '../../../native/io/checkpoint.ts';
import { LudusError } from '../../../core/errors.ts';
import { PretrainConfigSchema } from '../../../lab/pretrain/pretrain-config.ts';
import { pretrain } from '../../../lab/pretrain/pretrain.ts';
import { loadTokenizer } from '../../../plugins/tokenizers/hf-tokenizer.ts';

const micro = {
  hidden_size: 32, intermediate_size: 48, num_hidden_layers: 2, num_attention_heads: 2, num_key_value_heads: 1, head_dim: 16,
};
const config = PretrainConfigSchema.parse({
  task: 'arithmetic',
  taskOptions: { maxDigits: 2 },
  steps: 6,
  batch: 4,
  vocabSize: 300,
  tokenizerProblems: 200,
  model: micro,
  checkpointEvery: 3,
  maxTokens: 160,
  schedule: { lr: 1e-2, warmupSteps: 2, decay: 'cosine' },
});

describe('pretrain', () => {
  const dirs: string[] = [];
  const fresh = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ludus-pretrain-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  describe('having a run stopped halfway and resumed', () => {
    it('should end with the same weights as the run made in one go', async () => {
      const straight = await fresh();
      await pretrain({ out: straight, config, threads: 1 });
      const split = await fresh();
      const first = await pretrain({ out: split, config, threads: 1, stopAfter: 3 });
      expect(first.steps).toBe(3);
      await pretrain({ out: split, config, threads: 1, resume: true });
      const a = await loadCheckpoint(join(straight, 'model'));
      const b = await loadCheckpoint(join(split, 'model'));
      for (const [name, t] of a.weights) expect(Array.from(b.weights.get(name)!.data), name).toEqual(Array.from(t.data));
      const metrics = (await readFile(join(split, 'metrics.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l).step);
      expect(metrics).toEqual([1, 2, 3, 4, 5, 6]);
    });
  });

  describe('having finished', () => {
    it('should leave a Hugging Face model directory whose tokenizer round-trips the task text', async () => {
      const out = await fresh();
      await pretrain({ out, config, threads: 1 });
      const model = await loadCheckpoint(join(out, 'model'));
      const tokenizer = await loadTokenizer(join(out, 'model'));
      expect(model.config.vocabSize).toBe(tokenizer.vocabSize);
      const text = 'Question: What is 47 plus 85?\nAnswer:\nOnes: 7 plus 5 is 12.\n\nThe answer is \\boxed{132}.';
      expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
      const losses = (await readFile(join(out, 'metrics.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l).loss);
      expect(losses[losses.length - 1]).toBeLessThan(losses[0]);
    });
  });

  describe('having a checkpoint made with another config', () => {
    it('should refuse to resume with CONFIG_INVALID', async () => {
      const out = await fresh();
      await pretrain({ out, config, threads: 1, stopAfter: 3 });
      const other = { ...config, batch: 8 };
      await expect(pretrain({ out, config: other, threads: 1, resume: true })).rejects.toSatisfy((e) => LudusError.is(e, 'CONFIG_INVALID'));
    });
  });
});
