import { presetConfig } from '../model/presets.ts';
import { Decoder } from '../runtime/decoder.ts';
import { generate } from '../runtime/generate.ts';
import { EngineClient } from '../worker/engine-client.ts';
import { benchPolicies, prompts, round, SAMPLING, type EngineBenchOptions } from './engine-bench.ts';

export interface ResponsivenessResult {
  /** Longest gap between ticks of a 5 ms timer on this thread while the worker generated. */
  worker_max_gap_ms: number;
  /** The same with the generation run on this thread: each onnxruntime run holds the thread for its whole length. */
  in_process_max_gap_ms: number;
}

/** Runs `work` while a 5 ms interval timer ticks on this thread; returns the longest gap between ticks. */
async function longestTimerGap(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(longest, performance.now() - last);
}

/**
 * Why decoding runs in a worker thread (EngineClient): the longest stall of this thread's timers during one solo
 * generation at the decode batch, through the worker and in-process, side by side.
 */
export async function benchResponsiveness(options: Pick<EngineBenchOptions, 'preset' | 'batch' | 'promptTokens' | 'newTokens' | 'threads' | 'seed'>): Promise<ResponsivenessResult> {
  const config = presetConfig(options.preset);
  const { senior } = benchPolicies(config, options.seed);
  const rows = prompts(options.batch, options.promptTokens, config.vocabSize, options.seed);
  const maxLen = options.promptTokens + options.newTokens;
  const generation = { maxNewTokens: options.newTokens, sampling: SAMPLING, seed: options.seed };
  const client = await EngineClient.start({ threads: options.threads });
  let worker: number;
  try {
    worker = await longestTimerGap(async () => {
      const decoder = await client.createDecoder([senior], { batch: options.batch, maxLen });
      await client.generate(decoder, rows, generation);
      await client.release(decoder);
    });
  } finally {
    await client.close();
  }
  const inProcess = await longestTimerGap(async () => {
    const decoder = await Decoder.create([senior], { batch: options.batch, maxLen, threads: options.threads });
    await generate(decoder, rows, generation);
    await decoder.release();
  });
  return { worker_max_gap_ms: round(worker), in_process_max_gap_ms: round(inProcess) };
}
