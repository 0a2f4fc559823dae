import { buildSchedule } from '../../core/schedules/spec.ts';
import { Decoder } from '../runtime/decoder.ts';
import { generate } from '../runtime/generate.ts';
import type { Policy } from '../runtime/policy.ts';
import { median, prompts, round, SAMPLING, syntheticBoundary } from './engine-bench.ts';

export interface AdapterTandemBenchOptions {
  batch: number;
  newTokens: number;
  promptTokens: number;
  threads: number;
  repeats: number;
  seed: number;
  onProgress?: (label: string) => void;
}

export interface AdapterTandemBenchResult {
  /** Tandem with an adapter senior over its junior, the base: one co-decoded stack, one run per token (both policies' lanes). */
  tandem_adapter_stacked_tok_s: number;
  /** The same tandem as one decoder member per policy (two runs per token): the match engine's path before. */
  tandem_adapter_members_tok_s: number;
  tandem_adapter_stacked_over_members: number;
  tandem_adapter_stacked_tok_s_b1: number;
  tandem_adapter_members_tok_s_b1: number;
  tandem_adapter_stacked_over_members_b1: number;
}

/**
 * Co-decoding a senior that is a LoRA adapter with the base it sits on as the junior (tandem with an adapter senior),
 * as a co-decoded match runs it (word handoff p = 0.5, both policies' log-probabilities of every token): one
 * co-decoded stack against one decoder member per policy, at the bench batch and at B = 1, the two turning order
 * every repeat; medians.
 */
export async function benchAdapterTandem(base: Policy, senior: Policy, options: AdapterTandemBenchOptions): Promise<AdapterTandemBenchResult> {
  const progress = options.onProgress ?? (() => {});
  const boundary = syntheticBoundary(base.config.vocabSize, options.seed);
  const spec = { kind: 'word' as const, p: 0.5, K: 32, seed: options.seed, boundary };
  const maxLen = options.promptTokens + options.newTokens;
  const rates: Record<string, number> = {};
  for (const batch of [options.batch, 1]) {
    progress(`tandem with an adapter senior over its base junior, batch ${batch}: one co-decoded stack vs a member per policy, interleaved`);
    const rows = prompts(batch, options.promptTokens, base.config.vocabSize, options.seed);
    const decoders = {
      stacked: await Decoder.create([senior, base], { batch, maxLen, threads: options.threads, stacked: true, coDecoded: true }),
      members: await Decoder.create([senior, base], { batch, maxLen, threads: options.threads }),
    };
    const rollout = (decoder: Decoder, maxNewTokens = options.newTokens) =>
      generate(decoder, rows, { maxNewTokens, sampling: SAMPLING, seed: options.seed, schedule: buildSchedule(spec), partnerLogprobs: true });
    for (const decoder of Object.values(decoders)) await rollout(decoder, Math.min(8, options.newTokens));
    const samples = { stacked: [] as number[], members: [] as number[] };
    const keys = Object.keys(decoders) as (keyof typeof decoders)[];
    const repeats = batch === 1 ? options.repeats * 3 : options.repeats;
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (let k = 0; k < keys.length; k++) {
        const key = keys[(k + repeat) % keys.length];
        const start = performance.now();
        const rollouts = await rollout(decoders[key]);
        samples[key].push(rollouts.reduce((n, r) => n + r.tokens.length, 0) / ((performance.now() - start) / 1000));
      }
    }
    for (const decoder of Object.values(decoders)) await decoder.release();
    rates[`stacked_${batch}`] = median(samples.stacked);
    rates[`members_${batch}`] = median(samples.members);
  }
  const B = options.batch;
  return {
    tandem_adapter_stacked_tok_s: round(rates[`stacked_${B}`]),
    tandem_adapter_members_tok_s: round(rates[`members_${B}`]),
    tandem_adapter_stacked_over_members: round(rates[`stacked_${B}`] / rates[`members_${B}`], 3),
    tandem_adapter_stacked_tok_s_b1: round(rates.stacked_1, 1),
    tandem_adapter_members_tok_s_b1: round(rates.members_1, 1),
    tandem_adapter_stacked_over_members_b1: round(rates.stacked_1 / rates.members_1, 3),
  };
}
