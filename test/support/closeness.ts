import { readSafetensors } from '../../native/io/safetensors.ts';

/**
 * Where two JSON values differ by more than `tolerance` (numbers, absolute) or at all (anything else), as paths: []
 * when they agree. Keys and array lengths must match.
 */
export function farApart(a: unknown, b: unknown, tolerance: number, path = '$'): string[] {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= tolerance || (Number.isNaN(a) && Number.isNaN(b)) ? [] : [`${path}: ${a} vs ${b}`];
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return [`${path}: ${a.length} items vs ${b.length}`];
    return a.flatMap((x, i) => farApart(x, b[i], tolerance, `${path}[${i}]`));
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => farApart((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], tolerance, `${path}.${k}`));
  }
  return Object.is(a, b) ? [] : [`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`];
}

/** ‖x − y‖ / ‖x‖ over every tensor of two safetensors files (the same names in both). */
export async function relativeL2(path: string, other: string): Promise<number> {
  const [x, y] = [(await readSafetensors(path)).tensors, (await readSafetensors(other)).tensors];
  let gap = 0;
  let norm = 0;
  for (const [name, t] of x) {
    const data = y.get(name)?.data;
    if (!data || data.length !== t.data.length) return Number.POSITIVE_INFINITY;
    t.data.forEach((v, j) => {
      gap += (v - data[j]) ** 2;
      norm += v * v;
    });
  }
  if (y.size !== x.size) return Number.POSITIVE_INFINITY;
  return Math.sqrt(gap / norm);
}
