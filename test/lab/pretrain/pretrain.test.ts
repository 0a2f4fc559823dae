import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCheckpoint } from '../../../native/io/checkpoint.ts';
import { LudusError } from '../../../core/errors.ts';
import { PretrainConfigSchema } from '../../../lab/pretrain/pretrain-config.ts';
import { batchAt, pretrain } from '../../../lab/pretrain/pretrain.ts';
import { arithmeticTask } from '../../../plugins/tasks/arithmetic/arithmetic-task.ts';
import { taskByName } from '../../../plugins/tasks/registry.ts';
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
      const text = "Question: What is 47 plus 85? Let's think step by step and output the final answer within \\boxed{}.\nAnswer:\nOnes: 7 plus 5 is 12.\n\nThe answer is \\boxed{132}.";
      expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
      const losses = (await readFile(join(out, 'metrics.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l).loss);
      expect(losses[losses.length - 1]).toBeLessThan(losses[0]);
    });
  });

  describe('having a slip rate (the base\'s designed flaw)', () => {
    const slipping = { ...config, slipRate: 0.5 };

    it('should train on slipped solutions, the same ones at the same data position however the batches fall', async () => {
      const task = arithmeticTask({ seed: 0, maxDigits: 2 });
      const examples = batchAt(task, 0, { ...slipping, batch: 400 });
      const gold = task.problems('train', 400);
      expect(examples.map((e) => e.prompt)).toEqual(gold.map((p) => p.prompt));
      const slipped = examples.filter((e, i) => e.completion !== gold[i].solution).length;
      expect(slipped).toBeGreaterThan(40);
      expect(examples.every((e) => /\\boxed\{\d+\}\.$/.test(e.completion))).toBe(true);
      expect(batchAt(task, 100, { ...slipping, batch: 7 })).toEqual(examples.slice(100, 107));
      expect(batchAt(task, 0, { ...config, batch: 5 }).map((e) => e.completion)).toEqual(gold.slice(0, 5).map((p) => p.solution));
    });

    it('should refuse a task without slipped solutions with CONFIG_INVALID', async () => {
      const task = { ...(await taskByName('last-letter')), slipped: undefined };
      expect(() => batchAt(task, 0, { ...slipping, task: 'last-letter' })).toThrow(/CONFIG_INVALID.*slipRate.*"last-letter"/);
    });
  });

  describe('having a base cut short by saveAt', () => {
    it('should save the model at that step with the planned schedule\'s learning rates, resuming a run planned without it', async () => {
      const cut = PretrainConfigSchema.parse({ ...config, saveAt: 3 });
      const straight = await fresh();
      expect((await pretrain({ out: straight, config: cut, threads: 1 })).steps).toBe(3);
      const split = await fresh();
      await pretrain({ out: split, config, threads: 1, stopAfter: 3 });
      expect((await pretrain({ out: split, config: cut, threads: 1, resume: true })).steps).toBe(3);
      const a = await loadCheckpoint(join(straight, 'model'));
      const b = await loadCheckpoint(join(split, 'model'));
      for (const [name, t] of a.weights) expect(Array.from(b.weights.get(name)!.data), name).toEqual(Array.from(t.data));
      const lrs = (await readFile(join(straight, 'metrics.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l).lr);
      const planned = (await readFile(join(split, 'metrics.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l).lr);
      expect(lrs).toEqual(planned);
      expect(JSON.parse(await readFile(join(straight, 'model', 'pretrain_config.json'), 'utf8')).saveAt).toBe(3);
      expect(() => PretrainConfigSchema.parse({ ...config, saveAt: 7 })).toThrow(/saveAt/);
    });
  });

  describe('having a first stage', () => {
    const staged = PretrainConfigSchema.parse({ ...config, firstStage: { steps: 2, batch: 3, taskOptions: { minDigits: 1, maxDigits: 1 } } });

    it('should train its steps on the stage\'s problems alone, then on the run\'s, and resume across the boundary exactly', async () => {
      const straight = await fresh();
      await pretrain({ out: straight, config: staged, threads: 1 });
      const tokenizer = await loadTokenizer(join(straight, 'model'));
      const trained = (examples: Array<{ completion: string }>) => examples.reduce((sum, e) => sum + tokenizer.encode(e.completion).length + 1, 0);
      const stage = arithmeticTask({ seed: 0, minDigits: 1, maxDigits: 1 });
      const later = arithmeticTask({ seed: 0, maxDigits: 2 });
      const tokens = (await readFile(join(straight, 'metrics.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l).tokens);
      expect(tokens.slice(0, 2)).toEqual([trained(batchAt(stage, 0, { ...staged, batch: 3 })), trained(batchAt(stage, 3, { ...staged, batch: 3 }))]);
      expect(tokens[2]).toBe(trained(batchAt(later, 6, staged)));
      expect(tokens[2]).not.toBe(trained(batchAt(stage, 6, staged)));
      for (const stopAfter of [1, 3]) {
        const split = await fresh();
        await pretrain({ out: split, config: staged, threads: 1, stopAfter });
        await pretrain({ out: split, config: staged, threads: 1, resume: true });
        const a = await loadCheckpoint(join(straight, 'model'));
        const b = await loadCheckpoint(join(split, 'model'));
        for (const [name, t] of a.weights) expect(Array.from(b.weights.get(name)!.data), `${name} after a stop at ${stopAfter}`).toEqual(Array.from(t.data));
      }
      expect(() => PretrainConfigSchema.parse({ ...config, firstStage: { steps: 6, batch: 3 } })).toThrow(/firstStage/);
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
