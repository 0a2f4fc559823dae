import { Rng } from '../../core/rng.ts';
import { buildSchedule } from '../../core/schedules/spec.ts';
import type { ModelConfig } from '../model/config.ts';
import { initWeights, presetConfig, PRESETS } from '../model/presets.ts';
import { parameterCount } from '../model/memory.ts';
import { Decoder } from '../runtime/decoder.ts';
import { generate } from '../runtime/generate.ts';
import { Sampler } from '../runtime/sampler.ts';
import type { Policy } from '../runtime/policy.ts';

export interface EngineBenchOptions {
  preset: string;
  batch: number;
  newTokens: number;
  promptTokens: number;
  threads: number;
  /** Rows measured for the naive per-row prototype (it is slow; its rate is per token, so a few rows suffice). */
  naiveRows: number;
  /** Rollouts used to look for memory growth. */
  rssRollouts: number;
  /** Timed rollouts per configuration, interleaved solo/tandem; the median is reported. */
  repeats: number;
  seed: number;
  onProgress?: (label: string) => void;
}

export interface DecodeBenchResult {
  solo_decode_tok_s: number;
  tandem_decode_tok_s: number;
  tandem_over_solo: number;
  solo_decode_tok_s_b1: number;
  tandem_decode_tok_s_b1: number;
  tandem_over_solo_b1: number;
  naive_tandem_tok_s: number;
  tandem_over_naive: number;
  senior_share: number;
  decode_rss_growth_mb: number;
  cache_mb: number;
}

export const SAMPLING = { temperature: 1, topK: 0, topP: 1 };

/** Word-initial ids for a preset without a tokenizer: a fixed pseudo-random 35% of the vocabulary (Qwen3: 53k of 151k). */
export function syntheticBoundary(vocabSize: number, seed: number): number[] {
  const rng = new Rng(seed);
  const ids: number[] = [];
  for (let id = 0; id < vocabSize; id++) if (rng.next() < 0.35) ids.push(id);
  return ids;
}

export function benchPolicies(config: ModelConfig, seed: number): { senior: Policy; junior: Policy } {
  return {
    senior: { name: 'senior', config, weights: initWeights(config, seed), tokenizerHash: 'bench' },
    junior: { name: 'junior', config, weights: initWeights(config, seed + 1), tokenizerHash: 'bench' },
  };
}

export const prompts = (batch: number, length: number, vocab: number, seed: number): number[][] => {
  const rng = new Rng(seed);
  return Array.from({ length: batch }, () => Array.from({ length }, () => 1 + rng.int(vocab - 1)));
};

/**
 * Decode throughput measured side by side in one process: one policy vs two co-decoded policies (word handoff)
 * vs the naive prototype that steps each row alone through two separate models.
 */
export async function benchDecode(options: EngineBenchOptions): Promise<DecodeBenchResult> {
  const config = presetConfig(options.preset);
  const { senior, junior } = benchPolicies(config, options.seed);
  const maxLen = options.promptTokens + options.newTokens;
  const boundary = syntheticBoundary(config.vocabSize, options.seed);
  const spec = { kind: 'word' as const, p: 0.5, K: 32, seed: options.seed, boundary };
  const progress = options.onProgress ?? (() => {});

  const rates: Record<string, number> = {};
  let share = 0;
  let rssGrowth = 0;
  let cacheBytes = 0;
  for (const batch of [options.batch, 1]) {
    progress(`solo and tandem decode, batch ${batch}, interleaved repeats`);
    const rows = prompts(batch, options.promptTokens, config.vocabSize, options.seed);
    const solo = await Decoder.create([senior], { batch, maxLen, threads: options.threads });
    const tandem = await Decoder.create([senior, junior], { batch, maxLen, threads: options.threads });
    const rollout = (decoder: Decoder, maxNewTokens = options.newTokens) =>
      generate(decoder, rows, { maxNewTokens, sampling: SAMPLING, seed: options.seed, schedule: decoder === tandem ? buildSchedule(spec) : undefined });
    const samples = { solo: [] as number[], tandem: [] as number[] };
    for (const decoder of [solo, tandem]) await rollout(decoder, Math.min(8, options.newTokens));
    // A B=1 rollout lasts a fraction of a second, where this machine's noise dominates: take three times the samples.
    const repeats = batch === 1 ? options.repeats * 3 : options.repeats;
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (const [label, decoder] of [['solo', solo], ['tandem', tandem]] as const) {
        const start = performance.now();
        const rollouts = await rollout(decoder);
        const tokens = rollouts.reduce((a, r) => a + r.tokens.length, 0);
        samples[label].push(tokens / ((performance.now() - start) / 1000));
        if (label === 'tandem' && batch === options.batch) share = rollouts.reduce((a, r) => a + r.authors.filter((x) => x === 0).length, 0) / tokens;
      }
    }
    rates[`solo_${batch}`] = median(samples.solo);
    rates[`tandem_${batch}`] = median(samples.tandem);
    if (batch === options.batch) {
      progress(`memory over ${options.rssRollouts} repeated tandem rollouts`);
      const before = process.memoryUsage().rss;
      for (let i = 0; i < options.rssRollouts; i++) await rollout(tandem);
      rssGrowth = (process.memoryUsage().rss - before) / 2 ** 20;
      cacheBytes = tandem.cacheBytes;
    }
    await solo.release();
    await tandem.release();
  }

  progress(`naive tandem prototype, ${options.naiveRows} rows one at a time`);
  const naive = await benchNaive(senior, junior, options, boundary);
  const solo = rates[`solo_${options.batch}`];
  const tandem = rates[`tandem_${options.batch}`];
  return {
    solo_decode_tok_s: round(solo),
    tandem_decode_tok_s: round(tandem),
    tandem_over_solo: round(tandem / solo, 3),
    solo_decode_tok_s_b1: round(rates.solo_1),
    tandem_decode_tok_s_b1: round(rates.tandem_1),
    tandem_over_solo_b1: round(rates.tandem_1 / rates.solo_1, 3),
    naive_tandem_tok_s: round(naive),
    tandem_over_naive: round(tandem / naive, 2),
    senior_share: round(share, 3),
    decode_rss_growth_mb: round(rssGrowth, 1),
    cache_mb: round(cacheBytes / 2 ** 20, 1),
  };
}

/**
 * The tandem paper's naive outer-loop prototype: every row on its own, each step forwarding the senior and the
 * junior as two separate models (two runs), sampling both and keeping the active author's token.
 */
async function benchNaive(senior: Policy, junior: Policy, options: EngineBenchOptions, boundary: number[]): Promise<number> {
  const maxLen = options.promptTokens + options.newTokens;
  const seniorDecoder = await Decoder.create([senior], { batch: 1, maxLen, threads: options.threads });
  const juniorDecoder = await Decoder.create([junior], { batch: 1, maxLen, threads: options.threads });
  const rows = prompts(options.naiveRows, options.promptTokens, senior.config.vocabSize, options.seed);
  const schedule = buildSchedule({ kind: 'word', p: 0.5, K: 32, seed: options.seed, boundary });
  const sampler = new Sampler(senior.config.vocabSize);
  const start = performance.now();
  let tokens = 0;
  for (const [row, prompt] of rows.entries()) {
    const rng = new Rng(options.seed + row);
    let author = schedule.first(row);
    let [s, j] = [await seniorDecoder.prefill([prompt]), await juniorDecoder.prefill([prompt])];
    for (let t = 0; t < options.newTokens; t++) {
      const fromSenior = sampler.sample(s.of(0, 0)!, 0, SAMPLING, rng);
      const fromJunior = sampler.sample(j.of(0, 0)!, 0, SAMPLING, rng);
      const token = author === 0 ? fromSenior.token : fromJunior.token;
      tokens += 1;
      author = schedule.next(row, token);
      if (t + 1 < options.newTokens) [s, j] = [await seniorDecoder.step([token]), await juniorDecoder.step([token])];
    }
  }
  const seconds = (performance.now() - start) / 1000;
  await seniorDecoder.release();
  await juniorDecoder.release();
  return tokens / seconds;
}

export function presetSummary(preset: string): { model_config: Record<string, unknown>; parameters: number } {
  return { model_config: PRESETS[preset], parameters: parameterCount(presetConfig(preset)) };
}

export const round = (x: number, digits = 1): number => Number(x.toFixed(digits));

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
