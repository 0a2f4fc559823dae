import { readFile } from 'node:fs/promises';
import { LudusError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import { buildSchedule } from '../../core/schedules/spec.ts';
import { loadCheckpoint } from '../io/checkpoint.ts';
import type { ModelConfig } from '../model/config.ts';
import { parameterCount } from '../model/memory.ts';
import { initWeights } from '../model/presets.ts';
import { Graph, MS_DOMAIN } from '../onnx/graph.ts';
import { f16BitsOf } from '../io/float-bits.ts';
import { Session, type Device, type Feeds } from '../ort.ts';
import { Decoder, LAZY_MAX_BATCH } from '../runtime/decoder.ts';
import { generate } from '../runtime/generate.ts';
import type { Policy } from '../runtime/policy.ts';
import { Scorer } from '../runtime/scorer.ts';
import { median, round, SAMPLING, syntheticBoundary } from './engine-bench.ts';
import { writeRandomCheckpoint } from './random-checkpoint.ts';
import { placementPhase } from './placement-check.ts';
import { llamaCppPhase } from './llama-cpp-peer.ts';
import { benchTrainOn } from './train-bench.ts';
import { benchTorchBackend } from './torch-backend-bench.ts';
import { twoAdaptersAtBatches } from './two-adapters-decode.ts';

/**
 * The phases of the real-size benchmark. Each runs in a process of its own (`real-size-phase.js`), so its peak RSS
 * is its own and one phase's multi-gigabyte weights are gone before the next starts.
 */
export interface PhaseContext {
  /** The random checkpoint written for this run. */
  dir: string;
  threads: number;
  seed: number;
  /** Where score, decode and train run (cpu when absent). */
  device?: Device;
}

export type PhaseResult = Record<string, unknown>;

const peakRssMb = (): number => round(process.resourceUsage().maxRSS / 1024);

async function loadBench(ctx: PhaseContext): Promise<{ config: ModelConfig; senior: Policy; seconds: number }> {
  const start = performance.now();
  const { config, weights } = await loadCheckpoint(ctx.dir);
  return { config, senior: { name: 'senior', config, weights, tokenizerHash: 'bench' }, seconds: (performance.now() - start) / 1000 };
}

/** Loading the checkpoint (BF16 on disk, float32 in memory): time and peak RSS. */
export async function loadPhase(ctx: PhaseContext): Promise<PhaseResult> {
  const { config, seconds } = await loadBench(ctx);
  return { load_s: round(seconds, 2), parameters: parameterCount(config), load_peak_rss_mb: peakRssMb() };
}

/** `ludus score` of one sequence on the context's device, for comparison with the PyTorch reference and the CPU on the same checkpoint. */
export async function scorePhase(ctx: PhaseContext & { tokensFile: string }): Promise<PhaseResult> {
  const { senior } = await loadBench(ctx);
  const tokens = JSON.parse(await readFile(ctx.tokensFile, 'utf8')) as number[];
  const scorer = await Scorer.create(senior, { threads: ctx.threads, device: ctx.device });
  const start = performance.now();
  const [scored] = await scorer.score([tokens]);
  const seconds = (performance.now() - start) / 1000;
  await scorer.release();
  return { logprobs: scored.logprobs, score_s: round(seconds, 2), score_peak_rss_mb: peakRssMb() };
}

export interface DecodePhaseOptions {
  batches: number[];
  newTokens: Record<string, number>;
  promptTokens: number;
  repeats: number;
}

/**
 * Solo and tandem decode at each batch, interleaved: tandem is the checkpoint's model co-decoding with a second,
 * different random model of the same shape (word handoff, p = 0.5, K = 32, 35% of ids word-initial). Rates count
 * decode steps only (prefill excluded), so they compare with PyTorch's decode loop; the `_with_prefill` rates count
 * whole rollouts (prompt work included: a lazy member reads the prompt in its first catch-up, inside the timed
 * decode steps). Where the decoder defers row by row (lazy) above one row, the same tandem in lockstep (every member
 * reads every row of a step it owes a row in) runs beside it, for choosing LAZY_MAX_BATCH; at B=1 the two are one.
 */
export async function decodePhase(ctx: PhaseContext & DecodePhaseOptions): Promise<PhaseResult> {
  const { config, senior } = await loadBench(ctx);
  const junior: Policy = { name: 'junior', config, weights: initWeights(config, ctx.seed + 1, { fast: true }), tokenizerHash: 'bench' };
  const boundary = syntheticBoundary(config.vocabSize, ctx.seed);
  const result: PhaseResult = {};
  for (const batch of ctx.batches) {
    const newTokens = ctx.newTokens[String(batch)];
    const rng = new Rng(ctx.seed + batch);
    const prompts = Array.from({ length: batch }, () => Array.from({ length: ctx.promptTokens }, () => 1 + rng.int(config.vocabSize - 1)));
    const maxLen = ctx.promptTokens + newTokens;
    const on = { threads: ctx.threads, device: ctx.device };
    const solo = await Decoder.create([senior], { batch, maxLen, ...on });
    const tandem = await Decoder.create([senior, junior], { batch, maxLen, ...on });
    const lockstep = batch > 1 && batch <= LAZY_MAX_BATCH ? await Decoder.create([senior, junior], { batch, maxLen, ...on, sync: 'lockstep' }) : null;
    const rate = async (decoder: Decoder, maxNewTokens: number, partnerLogprobs = false): Promise<{ tokS: number; withPrefill: number; share: number }> => {
      const start = performance.now();
      let first = 0;
      const rollouts = await generate(decoder, prompts, {
        maxNewTokens,
        sampling: SAMPLING,
        seed: ctx.seed,
        partnerLogprobs,
        schedule: decoder.policies.length > 1 ? buildSchedule({ kind: 'word', p: 0.5, K: 32, seed: ctx.seed, boundary }) : undefined,
        onStep: (step) => {
          if (step === 0) first = performance.now();
        },
      });
      const end = performance.now();
      const authored = rollouts.flatMap((r) => r.authors);
      return { tokS: (batch * (maxNewTokens - 1)) / ((end - first) / 1000), withPrefill: (batch * maxNewTokens) / ((end - start) / 1000), share: authored.filter((a) => a === 0).length / authored.length };
    };
    for (const decoder of [solo, tandem, lockstep]) if (decoder) await rate(decoder, 2);
    const samples = { solo: [] as number[], tandem: [] as number[], lockstep: [] as number[], soloWithPrefill: [] as number[], tandemWithPrefill: [] as number[], share: [] as number[], full: [] as number[] };
    const largest = batch === Math.max(...ctx.batches);
    for (let r = 0; r < ctx.repeats; r++) {
      const s = await rate(solo, newTokens);
      samples.solo.push(s.tokS);
      samples.soloWithPrefill.push(s.withPrefill);
      const t = await rate(tandem, newTokens);
      samples.tandem.push(t.tokS);
      samples.tandemWithPrefill.push(t.withPrefill);
      samples.share.push(t.share);
      if (lockstep) samples.lockstep.push((await rate(lockstep, newTokens)).tokS);
      // The same tandem with every member projecting every row (partner log-probabilities asked for): what the
      // KV-only forward of the member not writing a row saves.
      if (largest) samples.full.push((await rate(tandem, newTokens, true)).tokS);
    }
    // The same solo decode with the other weight binding: the default bakes a frozen model in as prepacked initializers
    // where memory allows (decoderBinding), and feeds it as zero-copy inputs otherwise. Where the baked copy does not
    // fit beside the two members' weights, its refusal is the result.
    const binding = solo.bindings[0];
    let other: number | null = null;
    let bakedRefused: string | null = null;
    if (largest && (ctx.device ?? 'cpu') === 'cpu') {
      await solo.release();
      try {
        const alternative = await Decoder.create([senior], { batch, maxLen, threads: ctx.threads, weights: binding === 'initializers' ? 'inputs' : 'initializers' });
        await rate(alternative, 2);
        other = (await rate(alternative, newTokens)).tokS;
        await alternative.release();
      } catch (error) {
        if (!(error instanceof LudusError && error.code === 'MEMORY_INSUFFICIENT')) throw error;
        bakedRefused = error.message;
      }
    }
    const [baked, inputs] = binding === 'initializers' ? [median(samples.solo), other] : [other, median(samples.solo)];
    result[`b${batch}`] = {
      new_tokens: newTokens,
      solo_tok_s: round(median(samples.solo), 2),
      tandem_tok_s: round(median(samples.tandem), 2),
      tandem_over_solo: round(median(samples.tandem) / median(samples.solo), 3),
      tandem_over_solo_with_prefill: round(median(samples.tandemWithPrefill) / median(samples.soloWithPrefill), 3),
      ...(lockstep ? { tandem_lockstep_tok_s: round(median(samples.lockstep), 2), tandem_lockstep_over_solo: round(median(samples.lockstep) / median(samples.solo), 3) } : {}),
      senior_share: round(median(samples.share), 3),
      solo_binding: binding,
      ...(baked !== null && inputs !== null ? { solo_initializers_tok_s: round(baked, 2), solo_inputs_tok_s: round(inputs, 2), solo_initializers_over_inputs: round(baked / inputs, 3) } : {}),
      ...(bakedRefused !== null ? { solo_initializers_refused: bakedRefused } : {}),
      ...(largest ? { tandem_full_projection_tok_s: round(median(samples.full), 2), tandem_full_projection_over_solo: round(median(samples.full) / median(samples.solo), 3) } : {}),
      cache_mb: round(tandem.cacheBytes / 2 ** 20),
    };
    await solo.release();
    await tandem.release();
    await lockstep?.release();
  }
  result.decode_peak_rss_mb = peakRssMb();
  return result;
}

/**
 * Two rank-16 adapters (all seven projections, B non-zero) on the checkpoint's model in ONE stacked decoder, rows
 * alternating between them, against the model's solo decode at each batch, the two side by side in this process and
 * their order alternating across repeats (two-adapters-decode.ts). The adapters share the loaded weights: one copy
 * of the base in memory.
 */
export async function adaptersPhase(ctx: PhaseContext & DecodePhaseOptions): Promise<PhaseResult> {
  const { senior } = await loadBench(ctx);
  const result = await twoAdaptersAtBatches(senior, ctx);
  return { ...result, adapters_peak_rss_mb: peakRssMb() };
}

export interface TrainPhaseOptions {
  rows: number;
  cols: number;
  steps: number;
  /** LoRA rank: train an adapter of this rank (all seven projections) over the frozen model instead of every weight. */
  adapterRank?: number;
}

/** Full fine-tuning: forward + backward + AdamW on random tokens, every position trained; median step time after two warm-ups (as the PyTorch peer) and peak RSS. */
export async function trainPhase(ctx: PhaseContext & TrainPhaseOptions): Promise<PhaseResult> {
  const { config, senior } = await loadBench(ctx);
  const adapter = ctx.adapterRank === undefined ? {} : { adapter: { r: ctx.adapterRank } };
  const timed = await benchTrainOn(config, senior.weights, { rows: ctx.rows, cols: ctx.cols, threads: ctx.threads, device: ctx.device, steps: ctx.steps, seed: ctx.seed, warmups: 2, lr: 1e-6, ...adapter });
  return { train_rows: ctx.rows, train_cols: ctx.cols, ...timed, train_peak_rss_mb: peakRssMb() };
}

/** The same step on the torch backend (a PyTorch worker, native/torch), beside the onnxruntime learner's: step time and the worker's peak memory. */
export async function torchBackendPhase(ctx: PhaseContext & TrainPhaseOptions): Promise<PhaseResult> {
  return { train_rows: ctx.rows, train_cols: ctx.cols, ...(await benchTorchBackend({ dir: ctx.dir, rows: ctx.rows, cols: ctx.cols, steps: ctx.steps, warmups: 2, seed: ctx.seed, threads: ctx.threads, lr: 1e-6, device: ctx.device === 'cuda' ? 'cuda' : 'cpu', ...(ctx.adapterRank === undefined ? {} : { adapterRank: ctx.adapterRank }) })) };
}

/** Fastest of `repeats` runs of `session` on `feeds`, after one warm-up, in ms. */
async function fastestRun(session: Session, feeds: Feeds, outputs: string[], repeats = 5): Promise<number> {
  await session.run(feeds, outputs);
  const times: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const start = performance.now();
    await session.run(feeds, outputs);
    times.push(performance.now() - start);
  }
  return Math.min(...times);
}

/**
 * What storing frozen weights and KV caches in float16 would cost on this CPU: onnxruntime's x86 CPU kernels have no
 * float16 GEMM, so 16-bit tensors must be cast to float32 in the graph on every run. Times a stack of the model's
 * MLP projections (weights as inputs, as the decoder feeds them) at 1 and 64 rows, and one layer's attention over a
 * [16, Hkv, 1024, hd] cache, each with float32 tensors and with float16 tensors cast in the graph.
 */
export async function dtypePhase(ctx: PhaseContext & { hidden: number; intermediate: number; kvHeads: number; headDim: number; heads: number }): Promise<PhaseResult> {
  const result: PhaseResult = {};
  const layers = 4;
  const { hidden: K, intermediate: N } = ctx;
  const weight = Float32Array.from({ length: K * N }, (_, i) => Math.sin(i) * 0.02);
  for (const dtype of ['float32', 'float16'] as const) {
    const g = new Graph(`weights-${dtype}`);
    const x = g.input('x', 'float32', ['M', K]);
    let y = x;
    for (let i = 0; i < layers; i++) {
      const raw = g.input(`w${i}`, dtype, [N, K]);
      const w = dtype === 'float32' ? raw : g.op1('Cast', [raw], { to: 1 }, { dtypes: ['float32'] });
      y = g.op1('FusedMatMul', [g.op1('FusedMatMul', [y, w], { transB: 1 }, { domain: MS_DOMAIN }), w], {}, { domain: MS_DOMAIN });
    }
    g.output(y, 'y');
    const session = await Session.create(g.toBytes(), { threads: ctx.threads, label: 'weight dtype' });
    const data = dtype === 'float32' ? weight : f16BitsOf(weight);
    for (const M of [1, 64]) {
      const feeds: Feeds = { x: { dtype: 'float32', dims: [M, K], data: new Float32Array(M * K).fill(0.01) } };
      for (let i = 0; i < layers; i++) feeds[`w${i}`] = { dtype, dims: [N, K], data };
      result[`weights_${dtype}_m${M}_ms`] = round(await fastestRun(session, feeds, ['y']), 2);
    }
    await session.release();
  }
  const B = 16;
  const C = 1024;
  const { kvHeads: Hkv, headDim: hd } = ctx;
  const group = ctx.heads / Hkv;
  const cache = Float32Array.from({ length: B * Hkv * C * hd }, (_, i) => Math.cos(i) * 0.1);
  for (const dtype of ['float32', 'float16'] as const) {
    const g = new Graph(`cache-${dtype}`);
    const q = g.input('q', 'float32', [B, Hkv, group, hd]);
    const [k, v] = ['k', 'v'].map((name) => {
      const raw = g.input(name, dtype, [B, Hkv, C, hd]);
      return dtype === 'float32' ? raw : g.op1('Cast', [raw], { to: 1 }, { dtypes: ['float32'] });
    });
    const probs = g.op1('Softmax', [g.op1('FusedMatMul', [q, k], { transB: 1 }, { domain: MS_DOMAIN })], { axis: -1 });
    g.output(g.op1('MatMul', [probs, v]), 'y');
    const session = await Session.create(g.toBytes(), { threads: ctx.threads, label: 'cache dtype' });
    const data = dtype === 'float32' ? cache : f16BitsOf(cache);
    const feeds: Feeds = { q: { dtype: 'float32', dims: [B, Hkv, group, hd], data: new Float32Array(B * Hkv * group * hd).fill(0.01) }, k: { dtype, dims: [B, Hkv, C, hd], data }, v: { dtype, dims: [B, Hkv, C, hd], data } };
    result[`cache_${dtype}_b16_c1024_ms`] = round(await fastestRun(session, feeds, ['y']), 2);
    await session.release();
  }
  return result;
}

/**
 * The best float32 GEMM rate onnxruntime reaches here: decode-sized projections ([M, K] × [K, N] of the model's own
 * widths) with prepacked weights, at M = 64 and 512 rows. The ceiling decode efficiency is reported against.
 */
export async function matmulPeakPhase(ctx: PhaseContext & { hidden: number; intermediate: number }): Promise<PhaseResult> {
  const g = new Graph('peak');
  const K = ctx.hidden;
  const N = ctx.intermediate;
  const x = g.input('x', 'float32', ['M', K]);
  const weight = new Float32Array(K * N).map((_, i) => Math.sin(i) * 0.02);
  let y = x;
  const layers = 8;
  const w = g.initializer('w', { dtype: 'float32', dims: [K, N], data: weight });
  const back = g.initializer('back', { dtype: 'float32', dims: [N, K], data: weight });
  for (let i = 0; i < layers; i++) y = g.op1('MatMul', [g.op1('MatMul', [y, w]), back]);
  g.output(y, 'y');
  const session = await Session.create(g.toBytes(), { threads: ctx.threads, label: 'matmul peak' });
  const rates: number[] = [];
  for (const M of [64, 512]) {
    const feeds = { x: { dtype: 'float32' as const, dims: [M, K], data: new Float32Array(M * K).fill(0.01) } };
    await session.run(feeds, ['y']);
    const times: number[] = [];
    for (let r = 0; r < 5; r++) {
      const start = performance.now();
      await session.run(feeds, ['y']);
      times.push(performance.now() - start);
    }
    rates.push((4 * M * K * N * layers) / (Math.min(...times) / 1000) / 1e9);
  }
  await session.release();
  return { matmul_peak_gflops: round(Math.max(...rates), 1) };
}

/**
 * The ceiling of a GPU, measured the way its decode runs: float32 [n, n] × [n, n] products through onnxruntime on
 * the context's device, `layers` of them chained in one run from an input of one element broadcast on the device
 * (so nothing the size of the operands crosses to it per run, and nothing can be folded away at load), reduced to one
 * number on the way out. The best rate of 5 timed runs after one warm-up.
 */
export async function deviceMatmulPhase(ctx: PhaseContext & { size: number; layers?: number }): Promise<PhaseResult> {
  const n = ctx.size;
  const layers = ctx.layers ?? 8;
  const g = new Graph('device-peak');
  const seed = g.input('seed', 'float32', [1, 1]);
  const w = g.initializer('w', { dtype: 'float32', dims: [n, n], data: Float32Array.from({ length: n * n }, (_, i) => Math.sin(i) / Math.sqrt(n)) });
  let y = g.op1('Expand', [seed, g.ints([n, n])]);
  for (let i = 0; i < layers; i++) y = g.op1('MatMul', [y, w]);
  g.output(g.op1('ReduceSum', [y], { keepdims: 0 }), 'sum');
  const session = await Session.create(g.toBytes(20), { threads: ctx.threads, device: ctx.device, label: 'device matmul peak' });
  const ms = await fastestRun(session, { seed: { dtype: 'float32', dims: [1, 1], data: Float32Array.of(0.01) } }, ['sum']);
  await session.release();
  return { matmul_peak_gflops: round((2 * n * n * n * layers) / (ms / 1000) / 1e9, 1), matmul_size: n, matmul_layers: layers, matmul_ms: round(ms, 2) };
}

/** Writes the random checkpoint every other phase loads (in a process of its own, like them). */
export async function checkpointPhase(ctx: PhaseContext & { preset: string }): Promise<PhaseResult> {
  const start = performance.now();
  await writeRandomCheckpoint(ctx.dir, { preset: ctx.preset, seed: ctx.seed, dtype: 'BF16' });
  return { write_s: round((performance.now() - start) / 1000, 1) };
}

export const PHASES = {
  checkpoint: checkpointPhase,
  load: loadPhase,
  score: scorePhase,
  decode: decodePhase,
  adapters: adaptersPhase,
  train: trainPhase,
  'torch-backend': torchBackendPhase,
  'matmul-peak': matmulPeakPhase,
  'device-matmul': deviceMatmulPhase,
  placement: placementPhase,
  dtype: dtypePhase,
  'llama-cpp': llamaCppPhase,
} as const;
