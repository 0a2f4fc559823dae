import { join } from 'node:path';
import { pathExists } from '../io/files.ts';
import { loadCheckpoint, readJson } from '../io/checkpoint.ts';
import { exportGguf, type ExportedTokenizer } from '../io/gguf-export.ts';
import { byteLevelTokenizerJson } from '../io/gguf-tokenizer.ts';
import { llamaDecode, openGguf } from '../llama-cpp.ts';
import type { ModelConfig } from '../model/config.ts';
import { initWeights, presetConfig } from '../model/presets.ts';
import type { Weights } from '../model/weights.ts';
import { prompts, round } from './engine-bench.ts';

/**
 * llama.cpp as the decoding peer (`ludus bench engine --peer llama.cpp`), in a process of its own: the bench's model
 * exported to GGUF F32 (the same weights ludus decodes), then batched decoding of the same prompts and as many new
 * tokens, at each batch, with each of llamaThreadCounts and under each of LLAMA_CPP_CONFIGS.
 */
export interface LlamaPeerOptions {
  /** The small presets' random model (the bench's solo policy: initWeights(config, seed)) … */
  preset?: string;
  /** … or the real-size bench's checkpoint, with its tokenizer. */
  dir?: string;
  /** Where the GGUF file is written. */
  gguf: string;
  threads: number;
  seed: number;
  batches: number[];
  newTokens: Record<string, number>;
  promptTokens: number;
  /** Timed rollouts at each batch; the median is reported. */
  repeats: Record<string, number>;
  /** The bench's own prompts: `prompts(batch, promptTokens, vocab, seed)`, or seeded `seed + batch` as the real-size bench draws them. */
  promptSeedPerBatch: boolean;
}

/**
 * The settings llama.cpp is timed with at each batch: its defaults (an F16 KV cache, flash attention where the
 * backend has it) and the other three pairings. The fastest is the peer's rate, so the ratio is taken against
 * llama.cpp at its best on this machine, whichever that is.
 */
export const LLAMA_CPP_CONFIGS: ReadonlyArray<{ kvType: 'F16' | 'F32'; flashAttention: 'auto' | boolean }> = [
  { kvType: 'F16', flashAttention: 'auto' },
  { kvType: 'F16', flashAttention: false },
  { kvType: 'F32', flashAttention: 'auto' },
  { kvType: 'F32', flashAttention: false },
];

/**
 * The thread counts llama.cpp is timed with: the bench's and one. With as many threads as cores, a step of a small
 * model is a few microseconds of work between barriers, and a thread the scheduler takes away (the process's own
 * event loop, the collector) stalls every other for a time slice. On 2026-12-07, on two cores, qwen3-4m at B = 1
 * decoded 107 tokens/s on two threads with the machine quiet, where one thread had reached 1,369 under load. A
 * practitioner picks the faster, so both are timed.
 */
export const llamaThreadCounts = (threads: number): number[] => [...new Set([threads, 1])];

async function benchModel(o: LlamaPeerOptions): Promise<{ model: { config: ModelConfig; weights: Weights }; tokenizer: ExportedTokenizer }> {
  if (o.dir) {
    const model = await loadCheckpoint(o.dir);
    const file = join(o.dir, 'tokenizer.json');
    const configFile = join(o.dir, 'tokenizer_config.json');
    const json = (await pathExists(file)) ? ((await readJson(file, 'TOKENIZER_INVALID')) as Record<string, unknown>) : byteLevelTokenizerJson(model.config.vocabSize);
    const config = (await pathExists(configFile)) ? ((await readJson(configFile, 'TOKENIZER_INVALID')) as Record<string, unknown>) : {};
    return { model, tokenizer: { json, config, source: file } };
  }
  const config = presetConfig(o.preset ?? 'qwen3-4m');
  return { model: { config, weights: initWeights(config, o.seed) }, tokenizer: { json: byteLevelTokenizerJson(config.vocabSize), config: {}, source: `the ${o.preset} preset's byte vocabulary` } };
}

export async function llamaCppPhase(o: LlamaPeerOptions): Promise<Record<string, unknown>> {
  const exportStart = performance.now();
  let loaded: Awaited<ReturnType<typeof benchModel>> | null = await benchModel(o);
  const { config } = loaded.model;
  await exportGguf(loaded.model, loaded.tokenizer, o.gguf, { type: 'F32', name: o.preset ?? 'bench', force: true });
  loaded = null;
  const result: Record<string, unknown> = { export_s: round((performance.now() - exportStart) / 1000, 2) };
  const handle = await openGguf(o.gguf, o.threads);
  try {
    for (const batch of o.batches) {
      const rows = prompts(batch, o.promptTokens, config.vocabSize, o.promptSeedPerBatch ? o.seed + batch : o.seed);
      const runs = [];
      for (const threads of llamaThreadCounts(o.threads)) {
        for (const config of LLAMA_CPP_CONFIGS) runs.push(await llamaDecode(handle, { prompts: rows, newTokens: o.newTokens[String(batch)], repeats: o.repeats[String(batch)] ?? 1, threads, ...config }));
      }
      const best = runs.reduce((a, b) => (b.decode_tok_s > a.decode_tok_s ? b : a));
      result[`b${batch}`] = { ...best, configs: runs.map((r) => ({ threads: r.settings.threads, kv_cache: r.settings.kv_cache, flash_attention: r.settings.flash_attention, tok_s: r.tok_s, decode_tok_s: r.decode_tok_s })) };
    }
  } finally {
    await handle.release();
  }
  return { ...result, peak_rss_mb: round(process.resourceUsage().maxRSS / 1024) };
}
