import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LudusError } from '../../core/errors.ts';
import { packageRoot } from '../io/package-root.ts';
import { PRESETS } from '../model/presets.ts';

export interface TorchBaseline {
  version: string;
  decode_tok_s: number;
  train_tok_s: number;
}

const TOOLS = join(packageRoot(), 'tools', 'python');

/** Debian's python3-torch is for the system interpreter; LUDUS_PYTHON overrides it. */
export const pythonExecutable = (): string => process.env.LUDUS_PYTHON ?? '/usr/bin/python3';

export function python(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(pythonExecutable(), args, { cwd: TOOLS, timeout: 30 * 60_000, maxBuffer: 16 * 2 ** 20 }, (error, stdout, stderr) =>
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
  required: boolean;
}

/** The same model and workloads in PyTorch eager, run by tools/python with the same thread count. */
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
  {
    const config = join(dir, 'config.json');
    await writeFile(config, JSON.stringify(PRESETS[options.preset]));
    const threads = String(options.threads);
    const decode = JSON.parse(await python(['torch_decode_bench.py', '--config', config, '--batch', String(options.batch), '--new-tokens', String(options.newTokens), '--prompt-tokens', String(options.promptTokens), '--threads', threads]));
    const train = JSON.parse(await python(['qwen3_reference.py', 'bench', '--config', config, '--rows', String(options.trainBatch), '--cols', String(options.trainLen), '--threads', threads, '--steps', String(options.trainSteps)]));
    return { version, decode_tok_s: decode.tokensPerSecond, train_tok_s: train.tokensPerSecond };
  }
}
