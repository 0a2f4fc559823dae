import { describe, expect, it } from 'vitest';
import { CAPACITY_ALIGN, KvCaches, grownCapacity } from '../../../native/runtime/kv-cache.ts';

/** Every capacity a rollout growing one position at a time from `start` to `end` passes through. */
function capacities(start: number, end: number, maxLen: number): number[] {
  const seen = [start];
  for (let needed = start + 1; needed <= end; needed++) {
    const last = seen[seen.length - 1];
    if (needed > last) seen.push(grownCapacity(last, needed, maxLen));
  }
  return seen;
}

describe('grownCapacity', () => {
  it('should grow by a quarter, rounded up to whole multiples of the alignment', () => {
    // 32 -> 40 -> 48; 48 -> 60 -> 64; 64 -> 80; 80 -> 100 -> 112; 112 -> 140 -> 144; 144 -> 180 -> 192; 192 -> 240; 240 -> 300 -> 304.
    expect(capacities(32, 300, 4096)).toEqual([32, 48, 64, 80, 112, 144, 192, 240, 304]);
  });

  it('should jump straight to what is needed when that is more than a quarter', () => {
    expect(grownCapacity(32, 200, 4096)).toBe(208);
    expect(grownCapacity(32, 33, 4096)).toBe(48);
  });

  it('should stop at maxLen, even where maxLen is not aligned', () => {
    expect(capacities(32, 272, 272)).toEqual([32, 48, 64, 80, 112, 144, 192, 240, 272]);
    expect(grownCapacity(256, 257, 260)).toBe(260);
  });

  it('should keep every capacity short of maxLen a multiple of the alignment', () => {
    for (const c of capacities(32, 4000, 4096).slice(1)) expect(c % CAPACITY_ALIGN).toBe(0);
  });
});

describe('KvCaches', () => {
  const shape = { kvHeads: 2, headDim: 3 };
  /** A distinct value for (slot, row, head, position, dim). */
  const value = (slot: number, b: number, h: number, p: number, d: number) => slot * 10000 + b * 1000 + h * 100 + p * 10 + d + 1;

  /** Writes positions [0, length) of row b, one position per call, as the decoder does a step at a time. */
  function fill(caches: KvCaches, lengths: number[]): void {
    const S = 1;
    const written = new Int32Array(lengths.length);
    for (let p = 0; p < Math.max(...lengths); p++) {
      const counts = Int32Array.from(lengths, (n) => (p < n ? 1 : 0));
      let needed = 0;
      for (let b = 0; b < lengths.length; b++) needed = Math.max(needed, written[b] + counts[b]);
      caches.reserve(needed, written);
      for (let slot = 0; slot < caches.shapes.length; slot++) {
        const fresh = new Float32Array(lengths.length * shape.kvHeads * S * shape.headDim);
        for (let b = 0; b < lengths.length; b++) for (let h = 0; h < shape.kvHeads; h++) for (let d = 0; d < shape.headDim; d++) {
          fresh[((b * shape.kvHeads + h) * S) * shape.headDim + d] = value(slot, b, h, written[b], d);
        }
        caches.write(slot, fresh, S, written, counts);
      }
      for (let b = 0; b < lengths.length; b++) written[b] += counts[b];
    }
  }

  it('should keep every row\'s positions through each growth of the capacity', () => {
    const caches = new KvCaches(3, [shape, shape], 100, 8);
    const lengths = [70, 9, 33];
    fill(caches, lengths);
    expect(caches.capacity).toBe(80);
    for (const [slot, data] of caches.slots.entries()) {
      expect(data.length).toBe(3 * shape.kvHeads * caches.capacity * shape.headDim);
      for (let b = 0; b < 3; b++) for (let h = 0; h < shape.kvHeads; h++) for (let p = 0; p < lengths[b]; p++) for (let d = 0; d < shape.headDim; d++) {
        expect(data[((b * shape.kvHeads + h) * caches.capacity + p) * shape.headDim + d]).toBe(value(slot, b, h, p, d));
      }
    }
  });

  it('should go back to the smallest capacity on reset and keep the committed bytes', () => {
    const caches = new KvCaches(2, [shape], 64, 8);
    fill(caches, [50, 20]);
    const bytes = caches.allocatedBytes;
    expect(bytes).toBe(2 * caches.capacity * shape.kvHeads * shape.headDim * 4);
    caches.reset();
    expect(caches.capacity).toBe(8);
    fill(caches, [50, 20]);
    expect(caches.allocatedBytes).toBe(bytes);
  });
});
