import { availableParallelism } from 'node:os';
import { Option, type Command } from 'commander';
import { fail } from '../core/errors.ts';
import { DEVICES, type Device } from '../native/ort.ts';

/** --device, the same on every command that runs the engine on one: cpu, cuda or webgpu (docs/gpu.md). */
export const deviceOption = (description = 'cpu; webgpu where a Vulkan, Metal or Direct3D 12 GPU driver is present; cuda where onnxruntime-node was installed with its CUDA binaries (docs/gpu.md)'): Option =>
  new Option('--device <device>', description).choices([...DEVICES]).default('cpu');

export const parseDevice = (value: string): Device => value as Device;

export function parseTokenList(text: string): number[] {
  const parts = text.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (parts.length === 0) fail('INPUT_INVALID', '--tokens is empty');
  return parts.map((part, i) => {
    const n = Number(part);
    if (!Number.isInteger(n) || n < 0) fail('INPUT_INVALID', `--tokens: item ${i} ("${part}") is not a non-negative integer`, { index: i });
    return n;
  });
}

/** --port: an integer from 0 to 65535 (0 picks a free one). */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || port > 65535) fail('INPUT_INVALID', `--port "${value}" is not a port: give an integer from 0 to 65535 (0 picks a free one)`, { flag: 'port' });
  return port;
}

/** --threads: a non-negative integer (0 lets onnxruntime choose). */
export function parseThreads(value: string): number {
  const threads = Number(value);
  if (!/^\s*\d+\s*$/.test(value)) fail('INPUT_INVALID', `--threads "${value}" is not a thread count: give an integer >= 0 (0 lets onnxruntime choose)`, { flag: 'threads' });
  return threads;
}

/** --threads N, the same on every command that runs the engine (with {@link forceThreadsOption} beside it). */
export const threadsOption = (defaultThreads: number): Option =>
  new Option('--threads <n>', "intra-op threads (0: onnxruntime's default; at most this machine's cores unless --force-threads)").argParser(parseThreads).default(defaultThreads);

export const forceThreadsOption = (): Option => new Option('--force-threads', "allow --threads above this machine's cores");

/**
 * More threads than cores only slows onnxruntime down (and a thousand of them can exhaust the machine), so a
 * --threads given above the cores is refused unless --force-threads says it is meant.
 */
export function checkThreads(command: Command): void {
  if (command.getOptionValueSource('threads') !== 'cli' || command.getOptionValue('forceThreads') === true) return;
  const threads = Number(command.getOptionValue('threads'));
  const cores = availableParallelism();
  if (threads > cores) {
    fail('INPUT_INVALID', `--threads ${threads} is more than this machine's ${cores} cores; give at most ${cores} (0 lets onnxruntime choose), or add --force-threads`, { flag: 'threads', cores });
  }
}

/** `--restart`: start the run in --out over, dropping its checkpoint (a run stopped before its first checkpoint, or one given up on). */
export const restartOption = (): Option => new Option('--restart', 'start the run in --out over in place, dropping its checkpoint, best/ and logs').conflicts('resume');

/** What --resume and --restart ask of a run directory (engine/trainer/run-dir.ts ResumeMode). */
export function resumeMode(opts: { resume?: boolean; restart?: boolean }): boolean | 'restart' {
  return opts.restart ? 'restart' : opts.resume === true;
}

/**
 * A whole-number flag of at least `min` (`--problems 10`), refused with INPUT_INVALID naming the flag otherwise: a
 * bench given `--problems abc` ran on NaN and printed zeros.
 */
export const wholeNumberArg =
  (flag: string, min = 1) =>
  (value: string): number => {
    const n = Number(value);
    if (!/^\s*-?\d+\s*$/.test(value) || n < min) fail('INPUT_INVALID', `--${flag} "${value}" is not a whole number ≥ ${min}`, { flag });
    return n;
  };

/** A positive real-number flag (`--shard-mb 1.5`), refused with INPUT_INVALID naming the flag otherwise. */
export const positiveNumberArg =
  (flag: string) =>
  (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n <= 0) fail('INPUT_INVALID', `--${flag} "${value}" is not a positive number`, { flag });
    return n;
  };
