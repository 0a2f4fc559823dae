import { Option } from 'commander';
import { fail } from '../core/errors.ts';
import type { Device } from '../native/ort.ts';

export const deviceOption = (): Option => new Option('--device <device>', 'cpu, or cuda where onnxruntime-node was installed with its CUDA binaries').choices(['cpu', 'cuda']).default('cpu');

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
