import type { HostTensor } from '../ort.ts';
import type { TokenArray } from './learn-batch.ts';

/**
 * A window of rows [r0, r1) and leading columns [0, used) of a flat row-major [rows, cols] batch: one
 * micro-batch, with the padding after its last trained token cut away.
 */
export interface RowWindow {
  r0: number;
  r1: number;
  cols: number;
  used: number;
}

/**
 * One past the last column with a nonzero mask in rows [r0, r1) (at least 1). Positions after it cannot
 * influence a trained token (attention is causal) and carry no loss, so they need not run.
 */
export function usedColumns(mask: ArrayLike<number>, r0: number, r1: number, cols: number): number {
  let used = 1;
  for (let r = r0; r < r1; r++) {
    for (let t = cols - 1; t >= used; t--) {
      if (mask[r * cols + t] !== 0) {
        used = t + 1;
        break;
      }
    }
  }
  return used;
}

export function hasNonZero(values: ArrayLike<number>, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (values[i] !== 0) return true;
  return false;
}

export function floatWindow(values: ArrayLike<number>, w: RowWindow): Float32Array {
  const out = new Float32Array((w.r1 - w.r0) * w.used);
  for (let r = w.r0; r < w.r1; r++) for (let t = 0; t < w.used; t++) out[(r - w.r0) * w.used + t] = values[r * w.cols + t];
  return out;
}

export function int64Window(values: TokenArray, w: RowWindow): HostTensor {
  const out = new BigInt64Array((w.r1 - w.r0) * w.used);
  for (let r = w.r0; r < w.r1; r++) for (let t = 0; t < w.used; t++) out[(r - w.r0) * w.used + t] = BigInt(values[r * w.cols + t]);
  return { dtype: 'int64', dims: [w.r1 - w.r0, w.used], data: out };
}

/** Each position's next input token; the last column gets 0. */
export function nextTokens(ids: TokenArray, rows: number, cols: number): Int32Array {
  const out = new Int32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let t = 0; t + 1 < cols; t++) out[r * cols + t] = Number(ids[r * cols + t + 1]);
  return out;
}
