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

export { relativeL2 } from '../../native/bench/tensor-gap.ts';
