import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LudusError } from '../../core/errors.ts';
import { round, type EngineBenchOptions } from './engine-bench.ts';
import { runPhase } from './phase-command.ts';

export interface LlamaCppPeerReport {
  /** llama.cpp's rates at each batch (`b64`, `b1`): whole rollouts and decode steps alone, at its fastest settings, and under each. */
  decode: Record<string, { tok_s: number; decode_tok_s: number; configs: unknown[] }>;
  /** How llama.cpp was configured where it ran fastest (release, binary, threads, sequences, batch size, KV cache, flash attention, sampling). */
  settings: Record<string, unknown>;
  /** Ours over llama.cpp's, at each batch. */
  ratios: Record<string, number>;
  export_s: number;
}

/**
 * llama.cpp on the small preset's solo model, in a process of its own: the same rollouts as ludus's solo decode at
 * the bench's batch and at B = 1 (the same prompts, new tokens, threads and repeats, whole rollouts timed), set
 * against `ours` (ludus's rates at those batches).
 */
export async function llamaCppPeer(
  options: Pick<EngineBenchOptions, 'preset' | 'batch' | 'newTokens' | 'promptTokens' | 'threads' | 'repeats' | 'seed'> & { ours: Record<number, number> },
): Promise<LlamaCppPeerReport> {
  const dir = await mkdtemp(join(tmpdir(), 'ludus-llama-cpp-'));
  try {
    const batches = [options.batch, 1];
    const result = await runPhase('llama-cpp', {
      preset: options.preset,
      gguf: join(dir, 'model.gguf'),
      threads: options.threads,
      seed: options.seed,
      batches,
      newTokens: Object.fromEntries(batches.map((b) => [b, options.newTokens])),
      promptTokens: options.promptTokens,
      // As ludus's bench: a B = 1 rollout is short, so three times the samples.
      repeats: { [options.batch]: options.repeats, 1: options.repeats * 3 },
      promptSeedPerBatch: false,
    });
    if ('error' in result) throw new LudusError('ENGINE_RUN_FAILED', `the llama.cpp peer failed: ${(result.error as { message: string }).message}`);
    const decode: LlamaCppPeerReport['decode'] = {};
    const ratios: Record<string, number> = {};
    let settings: Record<string, unknown> = {};
    for (const batch of batches) {
      const row = result[`b${batch}`] as { tok_s: number; decode_tok_s: number; settings: Record<string, unknown>; configs: unknown[] };
      decode[`b${batch}`] = { tok_s: row.tok_s, decode_tok_s: row.decode_tok_s, configs: row.configs };
      ratios[`b${batch}`] = round(options.ours[batch] / row.tok_s, 2);
      settings = { ...settings, [`b${batch}`]: row.settings };
    }
    return { decode, settings, ratios, export_s: result.export_s as number };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
