import { Rng } from '../../core/rng.ts';
import { initWeights, presetConfig } from '../model/presets.ts';
import { cloneWeights, type Weights } from '../model/weights.ts';
import { Decoder } from '../runtime/decoder.ts';
import type { Policy } from '../runtime/policy.ts';
import { AdamW } from '../train/adamw.ts';
import { Learner } from '../train/learner.ts';
import { median, round } from './engine-bench.ts';
import { interleavedRates, medianOf, twoAdapters, twoAdaptersDecode, type DecodeRun } from './two-adapters-decode.ts';
import { benchAdapterTandem, type AdapterTandemBenchResult } from './adapter-tandem-bench.ts';

export interface AdapterBenchOptions {
  preset: string;
  batch: number;
  newTokens: number;
  promptTokens: number;
  threads: number;
  repeats: number;
  trainBatch: number;
  trainLen: number;
  trainSteps: number;
  seed: number;
  onProgress?: (label: string) => void;
}

export interface AdapterBenchResult extends AdapterTandemBenchResult {
  /** The base alone, every row. */
  base_decode_tok_s: number;
  /** Two rank-16 adapters on that base, rows alternating between them, in one stacked decoder (one run per step). */
  two_adapters_decode_tok_s: number;
  two_adapters_over_base: number;
  /** The same two adapters as before this change: a decoder each, half the rows each, one after the other. */
  two_adapters_apart_tok_s: number;
  stacked_over_apart: number;
  /** One decode step of the stacked decoder at the bench batch. */
  stacked_step_ms: number;
  /** Re-copying one adapter into the stacks after its optimizer step (what a new version costs the stacked decoder). */
  adapter_copy_ms: number;
  /** Full fine-tuning and LoRA r=16 steps on the same model and batch, interleaved step by step (order alternating); medians. */
  full_train_step_ms: number;
  lora_train_step_ms: number;
  lora_over_full: number;
  /** Of those: the AdamW update alone (same tensor sizes, timed apart), and a forward-only pass of the batch. */
  full_adamw_ms: number;
  lora_adamw_ms: number;
  forward_ms: number;
  /** Parameters trained by each. */
  full_trained_params: number;
  lora_trained_params: number;
}

const elements = (weights: ReadonlyMap<string, { data: Float32Array }>): number => [...weights.values()].reduce((n, t) => n + t.data.length, 0);

/**
 * LoRA in the engine, side by side in one process: decode with two adapters over one base at the bench batch against
 * the base alone (and against the two adapters in decoders of their own), tandem with an adapter senior over the base
 * co-decoded in one stack against a member per policy (adapter-tandem-bench.ts), the cost of picking up an updated adapter,
 * and a LoRA r=16 training step against full fine-tuning of the same model and batch, steps interleaved.
 */
export async function benchAdapters(options: AdapterBenchOptions): Promise<AdapterBenchResult> {
  const progress = options.onProgress ?? (() => {});
  const config = presetConfig(options.preset);
  const base: Policy = { name: 'base', config, weights: initWeights(config, options.seed), tokenizerHash: 'bench' };
  const [a, b] = twoAdapters(base, options.seed);
  const B = options.batch;
  const half = Math.max(1, B >> 1);
  const maxLen = options.promptTokens + options.newTokens;

  progress(`decode: base vs two adapters stacked vs two adapters apart, batch ${B}, interleaved repeats`);
  const { rows, seeds, authors, decode, runs, solo, stacked } = await twoAdaptersDecode(base, [a, b], options);
  const apartA = await Decoder.create([a], { batch: half, maxLen, threads: options.threads });
  const apartB = await Decoder.create([b], { batch: Math.max(1, B - half), maxLen, threads: options.threads });
  const apart: DecodeRun = async () => {
    const rollouts = [];
    for (const [author, decoder] of [apartA, apartB].entries()) {
      const mine = rows.flatMap((_, r) => (authors[r] === author ? [r] : []));
      if (mine.length > 0) rollouts.push(...(await decode(decoder, mine.map((r) => rows[r]), mine.map((r) => seeds[r]))));
    }
    return rollouts;
  };
  const rates = await interleavedRates({ ...runs, apart }, options.repeats);
  const [baseTokS, stackedTokS, apartTokS] = [medianOf(rates.base, 'tokS'), medianOf(rates.stacked, 'tokS'), medianOf(rates.apart, 'tokS')];
  const stepMs = (1000 * B) / stackedTokS;

  progress('re-copying one adapter after an optimizer step');
  const copies: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    await stacked.updatePolicy(1, b);
    copies.push(performance.now() - start);
  }
  for (const decoder of [solo, stacked, apartA, apartB]) await decoder.release();

  const tandem = await benchAdapterTandem(base, a, { ...options, onProgress: progress });

  progress(`training: full fine-tuning vs LoRA r=16, batch ${options.trainBatch} × ${options.trainLen}, interleaved steps`);
  const train = await benchTrainPair(base, a, options);
  return {
    base_decode_tok_s: round(baseTokS),
    two_adapters_decode_tok_s: round(stackedTokS),
    two_adapters_over_base: round(stackedTokS / baseTokS, 3),
    two_adapters_apart_tok_s: round(apartTokS),
    stacked_over_apart: round(stackedTokS / apartTokS, 3),
    stacked_step_ms: round(stepMs, 2),
    adapter_copy_ms: round(median(copies), 2),
    ...tandem,
    ...train,
  };
}

/** Full fine-tuning of `base` (a copy) and LoRA on `adapter` over it, one step of each in turn on the same batch, which goes first alternating. */
async function benchTrainPair(base: Policy, adapter: Policy, options: AdapterBenchOptions) {
  const full = await Learner.create(base.config, cloneWeights(base.weights), { objective: 'policy-gradient', optimizer: { lr: 1e-5 }, threads: options.threads });
  const lora = await Learner.create(adapter.config, adapter.weights, { objective: 'policy-gradient', optimizer: { lr: 1e-5 }, threads: options.threads });
  const rng = new Rng(options.seed);
  const { trainBatch: rows, trainLen: cols } = options;
  const n = rows * cols;
  const inputIds = Int32Array.from({ length: n }, () => rng.int(base.config.vocabSize));
  const targets = Int32Array.from({ length: n }, () => rng.int(base.config.vocabSize));
  const batch = { rows, cols, inputIds, targets, lossMask: new Float32Array(n).fill(1), advantages: Float32Array.from({ length: rows }, () => rng.normal()) };
  const oldLogprobs = await full.score({ rows, cols, inputIds, targets });
  const times = { full: [] as number[], lora: [] as number[], forward: [] as number[] };
  for (let i = 0; i < options.trainSteps + 1; i++) {
    const pair = [['full', full], ['lora', lora]] as const;
    for (const [key, learner] of i % 2 ? [...pair].reverse() : pair) {
      const start = performance.now();
      await learner.step({ ...batch, oldLogprobs });
      if (i > 0) times[key].push(performance.now() - start);
    }
    const start = performance.now();
    await full.score({ rows, cols, inputIds, targets });
    if (i > 0) times.forward.push(performance.now() - start);
  }
  const adamMs = (weights: Weights) => {
    const params = new Map([...weights].map(([name, t]) => [name, { dims: t.dims, data: new Float32Array(t.data.length) }]));
    const optimizer = new AdamW(params, { lr: 1e-5 });
    const grads = new Map([...params].map(([name, t]) => [name, new Float32Array(t.data.length).fill(1e-3)]));
    const spent: number[] = [];
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      optimizer.apply(grads);
      spent.push(performance.now() - start);
    }
    return median(spent);
  };
  const trained = lora.trainable;
  await full.release();
  await lora.release();
  const [fullMs, loraMs] = [median(times.full), median(times.lora)];
  return {
    full_train_step_ms: round(fullMs, 1),
    lora_train_step_ms: round(loraMs, 1),
    lora_over_full: round(fullMs / loraMs, 2),
    full_adamw_ms: round(adamMs(base.weights), 1),
    lora_adamw_ms: round(adamMs(trained), 2),
    forward_ms: round(median(times.forward), 1),
    full_trained_params: elements(base.weights),
    lora_trained_params: elements(trained),
  };
}
