import { readSafetensors } from '../io/safetensors.ts';

/** ‖x − y‖ / ‖x‖ over every tensor of two safetensors files (the same names and sizes in both; Infinity otherwise). */
export async function relativeL2(path: string, other: string): Promise<number> {
  const [x, y] = [(await readSafetensors(path)).tensors, (await readSafetensors(other)).tensors];
  if (y.size !== x.size) return Number.POSITIVE_INFINITY;
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
  return Math.sqrt(gap / norm);
}

/** The largest absolute difference between the numbers of two JSON values of one shape (Infinity where their shapes differ). */
export function largestGap(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b) ? 0 : Math.abs(a - b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length ? Math.max(0, ...a.map((x, i) => largestGap(x, b[i]))) : Number.POSITIVE_INFINITY;
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return Math.max(0, ...[...keys].map((k) => largestGap((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])));
  }
  return Object.is(a, b) ? 0 : Number.POSITIVE_INFINITY;
}
