import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rng } from '../../core/rng.ts';
import { parameterCount } from '../model/memory.ts';
import { PRESETS, presetConfig } from '../model/presets.ts';
import { round } from './engine-bench.ts';
import { runPhase } from './phase-command.ts';
import type { PhaseResult } from './real-size-phases.ts';
import { python, speedPeerArgs, TORCH_SPEED_PEER, torchEnvironment, torchVersion } from './torch-baseline.ts';
import type { Device } from '../ort.ts';

export interface RealSizeOptions {
  preset: string;
  threads: number;
  /** Where score, decode and train run; on a GPU the score is also taken on the CPU, as the reference (default cpu). */
  device?: Device;
  /** On a GPU: the side n of the n × n float32 products its ceiling is measured with (default 4096). */
  matmulSize?: number;
  /**
   * What a GPU run measures beyond the CPU's, also asked for on the CPU (tests): the ceiling as one large matmul
   * ('matmul'; default on a GPU) or decode-sized GEMMs ('gemm'), and the score taken again on the CPU as the reference.
   */
  ceiling?: 'matmul' | 'gemm';
  cpuReference?: boolean;
  seed: number;
  batches: number[];
  /** New tokens per rollout at each batch. */
  newTokens: Record<string, number>;
  promptTokens: number;
  repeats: number;
  trainRows: number;
  trainCols: number;
  trainSteps: number;
  /** Tokens of the sequence scored by ludus and by the PyTorch reference. */
  scoreTokens: number;
  torch: 'auto' | 'on' | 'off';
  /** The measurements to run (REAL_SIZE_PHASES; all when absent); the checkpoint is always written. */
  phases?: readonly string[];
  /** Decoding peers on the same weights: 'llama.cpp' (the checkpoint exported to GGUF F32). */
  peers?: readonly string[];
  onProgress?: (label: string) => void;
}

export const REAL_SIZE_DEFAULTS = {
  batches: [1, 16, 64],
  newTokens: { 1: 16, 16: 32, 64: 32 },
  promptTokens: 16,
  repeats: 1,
  trainRows: 4,
  trainCols: 128,
  trainSteps: 2,
  scoreTokens: 256,
};

/** The measurements a run may be limited to, in the order they run; each PyTorch baseline runs with its ludus phase. */
export const REAL_SIZE_PHASES: readonly string[] = ['matmul-peak', 'dtype', 'load', 'score', 'decode', 'adapters', 'train', 'train:lora', 'torch-backend', 'torch-backend:lora'];

/** The default measurements on a GPU: its ceiling, scoring (against the CPU's), solo and tandem decode, training; no load phase, which would only time one more load of the checkpoint inside the device check's minutes. */
export const DEVICE_PHASES: readonly string[] = ['matmul-peak', 'score', 'decode', 'train'];

type Refusal = { error: { code: string; message: string } };
const refused = (r: PhaseResult): r is Refusal => 'error' in r;


/** Multiply-adds ×2 of one decoded token: every matrix once (the vocabulary projection included) and attention over `context` positions. */
export function decodeFlopsPerToken(preset: string, context: number): number {
  const c = presetConfig(preset);
  const embedding = c.vocabSize * c.hiddenSize;
  const matrices = parameterCount(c) - embedding * (c.tieWordEmbeddings ? 1 : 2) + embedding;
  return 2 * matrices + 4 * c.numLayers * c.numHeads * c.headDim * context;
}

export interface RealSizeReport {
  preset: string;
  device: Device;
  parameters: number;
  threads: number;
  cores: number;
  phases: Record<string, PhaseResult>;
  summary: Record<string, unknown>;
}

/**
 * The real-size benchmark: a seeded random checkpoint of a released model's shape (BF16, the real vocabulary) is
 * written to a temporary directory, then each measurement runs in a process of its own, ludus's and PyTorch
 * eager's side by side: matmul peak, load, scoring against the PyTorch reference, solo and tandem decode at each
 * batch, two adapters stacked on the model against its solo decode, full fine-tuning and LoRA. A phase refused for memory reports its MEMORY_INSUFFICIENT message in place of numbers.
 */
export async function benchRealSize(options: RealSizeOptions): Promise<RealSizeReport> {
  const progress = options.onProgress ?? (() => {});
  const config = presetConfig(options.preset);
  const dir = await mkdtemp(join(tmpdir(), `ludus-${options.preset}-`));
  const device = options.device ?? 'cpu';
  const ctx = { dir: join(dir, 'model'), threads: options.threads, seed: options.seed, device };
  const phases: Record<string, PhaseResult> = {};
  const torch = options.torch === 'off' ? null : await torchVersion();
  if (options.torch === 'on' && !torch) throw new Error('--torch on: torch is not importable');
  const listed = options.phases ?? (device === 'cpu' ? REAL_SIZE_PHASES : DEVICE_PHASES);
  // The CPU's reference score goes with the score.
  const wanted = (name: string) => name === 'checkpoint' || listed.includes(name === 'score:cpu' ? 'score' : name);
  const run = (name: string, label: string, extra: Record<string, unknown> = {}) => runAs(name.split(':')[0], name, label, extra);
  const runAs = async (module: string, name: string, label: string, extra: Record<string, unknown> = {}) => {
    if (!wanted(name)) return null;
    progress(label);
    try {
      phases[name] = await runPhase(module, { ...ctx, ...extra });
    } catch (error) {
      // Without the checkpoint nothing else can run; any other phase that dies (the kernel's out-of-memory killer on
      // a shared machine) is recorded as failed and the others still run, so an hour of measurements is not lost.
      if (name === 'checkpoint') throw error;
      phases[name] = { error: { code: 'ENGINE_RUN_FAILED', message: (error as Error).message.split('\n')[0] } };
    }
    progress(`${name} ${JSON.stringify(shown(phases[name]))}`);
    return phases[name];
  };
  const torchRun = async (name: string, label: string, args: string[]) => {
    if (!torch || !wanted(name.replace(/^torch-/, '').split(':')[0])) return null;
    progress(label);
    try {
      phases[name] = JSON.parse((await python(args, torchEnvironment(options.threads).env)).trim().split('\n').pop()!) as PhaseResult;
    } catch (error) {
      phases[name] = { error: { code: 'TORCH_FAILED', message: (error as Error).message.split('\n').slice(-2).join(' ') } };
    }
    progress(`${name} ${JSON.stringify(shown(phases[name]))}`);
    return phases[name];
  };
  try {
    await run('checkpoint', `writing a random ${options.preset} checkpoint (BF16)`, { preset: options.preset });
    if ((options.ceiling ?? (device === 'cpu' ? 'gemm' : 'matmul')) === 'gemm') await run('matmul-peak', "onnxruntime's float32 GEMM peak on this machine", { hidden: config.hiddenSize, intermediate: config.intermediateSize });
    else await runAs('device-matmul', 'matmul-peak', `the ${device} ceiling: float32 ${options.matmulSize ?? 4096}² products`, { size: options.matmulSize ?? 4096 });
    await run('dtype', 'float32 against float16 cast in the graph: weights and KV caches', { hidden: config.hiddenSize, intermediate: config.intermediateSize, kvHeads: config.numKvHeads, headDim: config.headDim, heads: config.numHeads });
    await run('load', 'loading the checkpoint');
    const rng = new Rng(options.seed);
    const tokens = Array.from({ length: options.scoreTokens }, () => rng.int(config.vocabSize));
    const tokensFile = join(dir, 'tokens.json');
    await writeFile(tokensFile, JSON.stringify(tokens));
    await run('score', `ludus score on ${device}, ${options.scoreTokens} tokens`, { tokensFile });
    if (options.cpuReference ?? device !== 'cpu') await run('score:cpu', 'the same scoring on the CPU, the reference', { tokensFile, device: 'cpu' });
    await torchRun('torch-score', 'the PyTorch reference scores the same tokens', ['qwen3_reference.py', 'score', '--checkpoint', ctx.dir, '--tokens', tokensFile, '--threads', String(options.threads)]);
    const decodeOptions = { batches: options.batches, newTokens: options.newTokens, promptTokens: options.promptTokens, repeats: options.repeats };
    await run('decode', `solo and tandem decode at B = ${options.batches.join(', ')}`, decodeOptions);
    const configFile = join(dir, 'model', 'config.json');
    const peerArgs = (batch: number) =>
      speedPeerArgs(configFile, { batch, newTokens: options.newTokens[String(batch)], promptTokens: options.promptTokens, threads: options.threads, repeats: options.repeats, rows: options.trainRows, cols: options.trainCols, steps: options.trainSteps });
    for (const batch of options.batches) {
      await torchRun(`torch-decode:${batch}`, `PyTorch decode written for speed, B = ${batch}`, peerArgs(batch).decode);
    }
    if (options.peers?.includes('llama.cpp') && wanted('decode')) {
      progress(`llama.cpp on the same checkpoint as GGUF F32, batched decoding at B = ${options.batches.join(', ')}`);
      phases['llama-cpp'] = await runPhase('llama-cpp', {
        dir: ctx.dir,
        gguf: join(dir, 'model.gguf'),
        threads: options.threads,
        seed: options.seed,
        batches: options.batches,
        newTokens: options.newTokens,
        promptTokens: options.promptTokens,
        repeats: Object.fromEntries(options.batches.map((b) => [b, options.repeats])),
        promptSeedPerBatch: true,
      });
      progress(`llama-cpp ${JSON.stringify(phases['llama-cpp'])}`);
    }
    await run('adapters', `two rank-16 adapters on the model, one stacked decoder, against its solo decode at B = ${options.batches.join(', ')}`, decodeOptions);
    await run('train', `full fine-tuning, ${options.trainRows} × ${options.trainCols} tokens`, { rows: options.trainRows, cols: options.trainCols, steps: options.trainSteps });
    await run('train:lora', `LoRA r=16 training, ${options.trainRows} × ${options.trainCols} tokens`, { rows: options.trainRows, cols: options.trainCols, steps: options.trainSteps, adapterRank: 16 });
    if (torch) {
      await run('torch-backend', `the torch backend's full fine-tuning step, ${options.trainRows} × ${options.trainCols} tokens`, { rows: options.trainRows, cols: options.trainCols, steps: options.trainSteps });
      await run('torch-backend:lora', `the torch backend's LoRA r=16 step, ${options.trainRows} × ${options.trainCols} tokens`, { rows: options.trainRows, cols: options.trainCols, steps: options.trainSteps, adapterRank: 16 });
    }
    await torchRun('torch-train', 'PyTorch training step written for speed', peerArgs(options.batches[0]).train);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return { preset: options.preset, device, parameters: parameterCount(config), threads: options.threads, cores: cpus().length, phases, summary: summarize(options, phases) };
}

function summarize(options: RealSizeOptions, phases: Record<string, PhaseResult>): Record<string, unknown> {
  const summary: Record<string, unknown> = { model_config: PRESETS[options.preset], ratios: {} };
  if (Object.keys(phases).some((name) => name.startsWith('torch-decode') || name === 'torch-train')) summary.torch_peer = TORCH_SPEED_PEER;
  const llama = phases['llama-cpp'];
  const ours = phases.score;
  const theirs = phases['torch-score'];
  if (ours && theirs && !refused(ours) && !refused(theirs)) {
    const a = ours.logprobs as (number | null)[];
    const b = theirs.logprobs as (number | null)[];
    summary.logprob_max_abs_diff_vs_torch = maxAbsDiff(a, b);
  }
  const cpu = phases['score:cpu'];
  if (ours && cpu && !refused(ours) && !refused(cpu)) summary.logprob_max_abs_diff_vs_cpu = maxAbsDiff(ours.logprobs as (number | null)[], cpu.logprobs as (number | null)[]);
  const peak = phases['matmul-peak']?.matmul_peak_gflops as number | undefined;
  const decode = phases.decode;
  if (decode && !refused(decode)) {
    for (const batch of options.batches) {
      const row = decode[`b${batch}`] as Record<string, number>;
      const context = options.promptTokens + options.newTokens[String(batch)] / 2;
      const gflops = (row.solo_tok_s * decodeFlopsPerToken(options.preset, context)) / 1e9;
      const torchRow = phases[`torch-decode:${batch}`];
      summary[`b${batch}`] = {
        solo_tok_s: row.solo_tok_s,
        tandem_tok_s: row.tandem_tok_s,
        tandem_over_solo: row.tandem_over_solo,
        solo_gflops: significant(gflops),
        ...(peak ? { efficiency_vs_matmul_peak: significant(gflops / peak) } : {}),
        ...(torchRow && !refused(torchRow) ? { torch_tok_s: torchRow.decodeTokensPerSecond, solo_over_torch: round(row.solo_tok_s / (torchRow.decodeTokensPerSecond as number), 2) } : {}),
        ...(llama && !refused(llama) ? llamaSummary((llama[`b${batch}`] as { decode_tok_s: number }).decode_tok_s, row.solo_tok_s, decodeFlopsPerToken(options.preset, context), peak) : {}),
      };
      const ratios = summary.ratios as Record<string, number>;
      const b = summary[`b${batch}`] as Record<string, number>;
      if (b.solo_over_torch !== undefined) ratios[`decode_over_torch_b${batch}`] = b.solo_over_torch;
      if (b.solo_over_llama_cpp !== undefined) ratios[`decode_over_llama_cpp_b${batch}`] = b.solo_over_llama_cpp;
      if (row.tandem_over_solo !== undefined) ratios[`tandem_over_solo_b${batch}`] = row.tandem_over_solo;
    }
  }
  const train = phases.train;
  if (train && !refused(train)) {
    // Forward and backward: about 6 flops per parameter per token (attention's share left out).
    const gflops = (6 * parameterCount(presetConfig(options.preset)) * (train.train_tok_s as number)) / 1e9;
    summary.train = { train_tok_s: train.train_tok_s, train_gflops: significant(gflops), ...(peak ? { efficiency_vs_matmul_peak: significant(gflops / peak) } : {}) };
  }
  const torchTrain = phases['torch-train'];
  if (train && !refused(train) && torchTrain && !refused(torchTrain)) {
    summary.train_over_torch = round((train.train_tok_s as number) / (torchTrain.tokensPerSecond as number), 2);
    (summary.ratios as Record<string, number>).train_over_torch = summary.train_over_torch as number;
  }
  const torchBackend = (name: string, ours: PhaseResult | undefined) => {
    const theirs = phases[name];
    if (!theirs || refused(theirs)) return undefined;
    return { step_ms: theirs.torch_train_step_ms, peak_rss_mb: theirs.torch_peak_rss_mb, ...(ours && !refused(ours) ? { onnxruntime_step_ms: ours.train_step_ms, onnxruntime_peak_rss_mb: ours.train_peak_rss_mb, onnxruntime_over_torch: round((theirs.torch_train_step_ms as number) / (ours.train_step_ms as number), 2) } : {}) };
  };
  const backends = { full: torchBackend('torch-backend', phases.train), lora: torchBackend('torch-backend:lora', phases['train:lora']) };
  if (backends.full || backends.lora) summary.torch_backend = backends;
  const adapters = phases.adapters;
  if (adapters && !refused(adapters)) {
    summary.two_adapters_over_base = Object.fromEntries(options.batches.map((b) => [`b${b}`, (adapters[`b${b}`] as Record<string, number>).two_adapters_over_base]));
  }
  const lora = phases['train:lora'];
  if (train && !refused(train) && lora && !refused(lora)) {
    summary.lora = {
      lora_over_full_tok_s: round((lora.train_tok_s as number) / (train.train_tok_s as number), 2),
      full_peak_rss_mb: train.train_peak_rss_mb,
      lora_peak_rss_mb: lora.train_peak_rss_mb,
    };
  }
  return summary;
}

const significant = (x: number): number => Number(x.toPrecision(3));

/** llama.cpp's decode rate beside ours, and its GFLOP/s against the same matmul ceiling. */
function llamaSummary(theirs: number, ours: number, flopsPerToken: number, peak: number | undefined): Record<string, number> {
  const gflops = (theirs * flopsPerToken) / 1e9;
  return { llama_cpp_tok_s: theirs, solo_over_llama_cpp: round(ours / theirs, 2), llama_cpp_gflops: significant(gflops), ...(peak ? { llama_cpp_efficiency_vs_matmul_peak: significant(gflops / peak) } : {}) };
}

/** The largest difference of two per-token log-probability lists (the first, null, skipped). */
const maxAbsDiff = (a: readonly (number | null)[], b: readonly (number | null)[]): number => Math.max(...a.slice(1).map((x, i) => Math.abs(x! - b[i + 1]!)));

/** A phase's numbers without the per-token lists. */
function shown(result: PhaseResult): PhaseResult {
  const { logprobs: _l, tokens: _t, ...rest } = result;
  return rest;
}

export function formatRealSize(r: RealSizeReport): string {
  const lines = [`${r.preset} on ${r.device}: ${(r.parameters / 1e6).toFixed(0)}M parameters, ${r.threads} threads on ${r.cores} cores`];
  for (const [name, result] of Object.entries(r.phases)) {
    lines.push(`${name.padEnd(16)} ${JSON.stringify(shown(result))}`);
  }
  lines.push(`${'summary'.padEnd(16)} ${JSON.stringify(r.summary)}`);
  return `${lines.join('\n')}\n`;
}
