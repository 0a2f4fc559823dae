import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LudusError } from '../../core/errors.ts';
import { packageRoot } from '../io/package-root.ts';
import { PRESETS } from '../model/presets.ts';

/**
 * The PyTorch peers of `ludus bench engine`: tools/python/torch_speed_peer.py, eager PyTorch written for speed (the
 * peer every ratio is taken against), and on request the correctness reference (qwen3_reference.py with
 * torch_decode_bench.py), the peer of the figures measured before 2026-12-07.
 */
export interface TorchBaseline {
  version: string;
  /** The BLAS PyTorch's matrix products ran on (Debian's python3-torch calls the system's libblas.so.3). */
  blas: string;
  decode_tok_s: number;
  train_tok_s: number;
  /** The reference model's rates on the same workloads, when asked for (`--torch-reference`). */
  reference?: { decode_tok_s: number; train_tok_s: number };
}

const TOOLS = join(packageRoot(), 'tools', 'python');

/** How reports name the peer: the one every ratio from 2026-12-07 is taken against. */
export const TORCH_SPEED_PEER = 'PyTorch eager written for speed (torch_speed_peer.py)';

/** Debian's python3-torch is for the system interpreter; LUDUS_PYTHON overrides it. */
export const pythonExecutable = (): string => process.env.LUDUS_PYTHON ?? '/usr/bin/python3';

/** Where Debian puts OpenBLAS's OpenMP build (libopenblas0-openmp), which shares PyTorch's OpenMP threads. */
const OPENMP_BLAS = '/usr/lib/x86_64-linux-gnu/openblas-openmp';

/**
 * The environment the peer runs in: `threads` threads for OpenMP and OpenBLAS alike, and OpenBLAS's OpenMP build
 * where it is installed, so PyTorch's products and its own kernels share one pool of threads (LUDUS_TORCH_BLAS=system
 * keeps the system's choice, Debian's default being the pthread build with a pool of its own).
 */
export function torchEnvironment(threads: number): { env: NodeJS.ProcessEnv; blas: string } {
  const wanted = process.env.LUDUS_TORCH_BLAS ?? (existsSync(join(OPENMP_BLAS, 'libblas.so.3')) ? 'openmp' : 'system');
  const env: NodeJS.ProcessEnv = { ...process.env, OMP_NUM_THREADS: String(threads), OPENBLAS_NUM_THREADS: String(threads) };
  if (wanted === 'openmp') env.LD_LIBRARY_PATH = [OPENMP_BLAS, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  return { env, blas: wanted === 'openmp' ? 'openblas-openmp' : 'system libblas.so.3' };
}

export function python(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(pythonExecutable(), args, { cwd: TOOLS, env, timeout: 30 * 60_000, maxBuffer: 16 * 2 ** 20 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

export async function torchVersion(): Promise<string | null> {
  try {
    return (await python(['-c', 'import torch; print(torch.__version__)'])).trim();
  } catch {
    return null;
  }
}

export interface TorchBenchOptions {
  preset: string;
  batch: number;
  newTokens: number;
  promptTokens: number;
  threads: number;
  trainBatch: number;
  trainLen: number;
  trainSteps: number;
  repeats: number;
  required: boolean;
  /** Also the reference model's rates (slow: its cache grows by concatenation). */
  reference?: boolean;
}

/** The command lines of the speed peer's decode and training measurements on `config` (a config.json path). */
export function speedPeerArgs(config: string, o: { batch: number; newTokens: number; promptTokens: number; threads: number; repeats: number; rows: number; cols: number; steps: number }) {
  const threads = String(o.threads);
  return {
    // Scripted, frozen and optimized for inference: its fastest decoding (docs/performance.md).
    decode: ['torch_speed_peer.py', 'decode', '--config', config, '--batch', String(o.batch), '--new-tokens', String(o.newTokens), '--prompt-tokens', String(o.promptTokens), '--threads', threads, '--repeats', String(o.repeats), '--jit', 'freeze'],
    train: ['torch_speed_peer.py', 'train', '--config', config, '--rows', String(o.rows), '--cols', String(o.cols), '--threads', threads, '--steps', String(o.steps)],
  };
}

/** The same model and workloads in PyTorch, with the same thread count. */
export async function benchTorch(options: TorchBenchOptions): Promise<TorchBaseline | { skipped: string }> {
  const version = await torchVersion();
  if (!version) {
    const reason = `torch is not importable by ${pythonExecutable()} (Debian: apt-get install python3-torch; or set LUDUS_PYTHON)`;
    if (options.required) throw new LudusError('DEVICE_UNAVAILABLE', reason);
    return { skipped: reason };
  }
  const dir = await mkdtemp(join(tmpdir(), 'ludus-torch-'));
  try {
    return await runTorch(dir, version, options);
  } catch (error) {
    const reason = `the PyTorch baseline failed: ${(error as Error).message.split('\n').slice(-3).join(' ')}`;
    if (options.required) throw new LudusError('ENGINE_RUN_FAILED', reason);
    return { skipped: reason };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function runTorch(dir: string, version: string, options: TorchBenchOptions): Promise<TorchBaseline> {
  const config = join(dir, 'config.json');
  await writeFile(config, JSON.stringify(PRESETS[options.preset]));
  const { env, blas } = torchEnvironment(options.threads);
  const args = speedPeerArgs(config, { ...options, rows: options.trainBatch, cols: options.trainLen, steps: options.trainSteps });
  const decode = JSON.parse(await python(args.decode, env));
  const train = JSON.parse(await python(args.train, env));
  const result: TorchBaseline = { version, blas, decode_tok_s: decode.tokensPerSecond, train_tok_s: train.tokensPerSecond };
  if (options.reference) {
    const threads = String(options.threads);
    const refDecode = JSON.parse(await python(['torch_decode_bench.py', '--config', config, '--batch', String(options.batch), '--new-tokens', String(options.newTokens), '--prompt-tokens', String(options.promptTokens), '--threads', threads], env));
    const refTrain = JSON.parse(await python(['qwen3_reference.py', 'bench', '--config', config, '--rows', String(options.trainBatch), '--cols', String(options.trainLen), '--threads', threads, '--steps', String(options.trainSteps)], env));
    result.reference = { decode_tok_s: refDecode.tokensPerSecond, train_tok_s: refTrain.tokensPerSecond };
  }
  return result;
}
