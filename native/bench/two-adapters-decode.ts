import { rowAuthorSchedule } from '../../core/schedules/author-schedule.ts';
import { adaptedWeights, initAdapter, withAdapter } from '../model/lora.ts';
import { parseLoraConfig } from '../model/lora-config.ts';
import { Decoder } from '../runtime/decoder.ts';
import { generate, type GenerateOptions, type Rollout } from '../runtime/generate.ts';
import type { Policy } from '../runtime/policy.ts';
import { median, prompts, round, SAMPLING } from './engine-bench.ts';

/** A rank-16 adapter (all seven projections) over `base`, B drawn non-zero (std 0.01) so its update is real work and changes tokens. */
export const adapted = (base: Policy, seed: number, name: string): Policy => {
  const config = withAdapter(base.config, parseLoraConfig({ r: 16, initStdB: 0.01 }));
  return { name, config, weights: adaptedWeights(base.weights, initAdapter(config, seed)), tokenizerHash: base.tokenizerHash };
};

/** Two such adapters over one base, seeded apart; both share the base's tensors. */
export const twoAdapters = (base: Policy, seed: number): [Policy, Policy] => [adapted(base, seed + 1, 'A'), adapted(base, seed + 2, 'B')];

export interface TwoAdaptersDecodeOptions {
  batch: number;
  newTokens: number;
  promptTokens: number;
  threads: number;
  seed: number;
}

/** One timed rollout of a batch; `onStep` is generate's, passed on so a rate can leave prefill out. */
export type DecodeRun = (onStep?: GenerateOptions['onStep']) => Promise<Rollout[]>;

/**
 * The base alone and two adapters over it in ONE stacked decoder (one run per step, rows alternating between the
 * adapters), on the same prompts and row seeds, each warmed up: the runs the two-adapter decode benches time.
 */
export async function twoAdaptersDecode(base: Policy, [a, b]: [Policy, Policy], options: TwoAdaptersDecodeOptions) {
  const B = options.batch;
  const maxLen = options.promptTokens + options.newTokens;
  const rows = prompts(B, options.promptTokens, base.config.vocabSize, options.seed);
  const seeds = rows.map((_, row) => options.seed * 1000 + row);
  const authors = rows.map((_, row) => row % 2);
  const solo = await Decoder.create([base], { batch: B, maxLen, threads: options.threads });
  const stacked = await Decoder.create([a, b], { batch: B, maxLen, threads: options.threads, stacked: true });
  const decode = (decoder: Decoder, take: number[][], rowSeeds: number[], schedule?: number[], maxNewTokens = options.newTokens, onStep?: GenerateOptions['onStep']) =>
    generate(decoder, take, { maxNewTokens, sampling: SAMPLING, seed: options.seed, rowSeeds, onStep, ...(schedule ? { schedule: rowAuthorSchedule(schedule) } : {}) });
  await decode(solo, rows, seeds, undefined, 4);
  await decode(stacked, rows, seeds, authors, 4);
  const runs = {
    base: ((onStep) => decode(solo, rows, seeds, undefined, options.newTokens, onStep)) as DecodeRun,
    stacked: ((onStep) => decode(stacked, rows, seeds, authors, options.newTokens, onStep)) as DecodeRun,
  };
  return { rows, seeds, authors, decode, runs, solo, stacked, release: async () => {
      await solo.release();
      await stacked.release();
    },
  };
}

/** One timed rollout: tokens per second over the whole rollout (prompt read included) and over its decode steps after the first. */
export interface DecodeRate {
  tokS: number;
  decodeTokS: number;
}

/**
 * Times every run `repeats` times, the order turning every repeat (under a fluctuating load a fixed order biases
 * whichever runs first). The decode-steps rate counts the tokens after each row's first (the first comes from the
 * prefill's logits) over the time after step 0, as the real-size decode rows count theirs.
 */
export async function interleavedRates<K extends string>(runs: Record<K, DecodeRun>, repeats: number): Promise<Record<K, DecodeRate[]>> {
  const keys = Object.keys(runs) as K[];
  const samples = Object.fromEntries(keys.map((key) => [key, [] as DecodeRate[]])) as Record<K, DecodeRate[]>;
  for (let repeat = 0; repeat < repeats; repeat++) {
    for (let k = 0; k < keys.length; k++) {
      const key = keys[(k + repeat) % keys.length];
      const start = performance.now();
      let first: number | null = null;
      const rollouts = await runs[key]((step) => {
        if (step === 0 && first === null) first = performance.now();
      });
      const end = performance.now();
      const tokens = rollouts.reduce((n, r) => n + r.tokens.length, 0);
      samples[key].push({ tokS: tokens / ((end - start) / 1000), decodeTokS: (tokens - rollouts.length) / ((end - (first ?? start)) / 1000) });
    }
  }
  return samples;
}

/** The median of one field of a run's rates. */
export const medianOf = (rates: DecodeRate[], field: keyof DecodeRate): number => median(rates.map((r) => r[field]));

/**
 * The real-size phase's measurement: at each batch, the base solo against two rank-16 adapters stacked on it, side by
 * side in one process, order alternating across repeats; rates over decode steps (prefill excluded) and, beside them,
 * over whole rollouts. `base` is the checkpoint's policy; the adapters share its tensors (no copy of the base).
 */
export async function twoAdaptersAtBatches(base: Policy, options: Omit<TwoAdaptersDecodeOptions, 'batch' | 'newTokens'> & { batches: number[]; newTokens: Record<string, number>; repeats: number }) {
  const adapters = twoAdapters(base, options.seed);
  const result: Record<string, unknown> = {};
  for (const batch of options.batches) {
    const bench = await twoAdaptersDecode(base, adapters, { ...options, batch, newTokens: options.newTokens[String(batch)] });
    const samples = await interleavedRates(bench.runs, options.repeats);
    await bench.release();
    const [solo, two] = [medianOf(samples.base, 'decodeTokS'), medianOf(samples.stacked, 'decodeTokS')];
    result[`b${batch}`] = {
      new_tokens: options.newTokens[String(batch)],
      base_tok_s: round(solo, 2),
      two_adapters_tok_s: round(two, 2),
      two_adapters_over_base: round(two / solo, 3),
      two_adapters_over_base_with_prefill: round(medianOf(samples.stacked, 'tokS') / medianOf(samples.base, 'tokS'), 3),
      // Each repeat's own pair (both run back to back): the spread the load leaves around the median ratio.
      two_adapters_over_base_each_repeat: samples.stacked.map((s, r) => round(s.decodeTokS / samples.base[r].decodeTokS, 3)),
    };
  }
  return result;
}
