import { fail } from '../../core/errors.ts';
import { ensureFits, FLOAT_BYTES } from '../model/memory.ts';

export interface CacheShape {
  kvHeads: number;
  headDim: number;
}

/** The longest typed array V8 allows (2^32 - 1 elements). */
const MAX_ELEMENTS = 2 ** 32 - 1;

/**
 * How far the capacity grows past what is needed (ours, measured): each run's attention reads every one of the C
 * positions, masked or not, so capacity beyond the rollout's length is paid for on every step, while each growth
 * re-lays out every cached position once. Growing by a quarter, in whole multiples of CAPACITY_ALIGN, decoded
 * qwen3-4m at B = 64 with 256 new tokens 14% faster solo and 9% faster in tandem than doubling did (docs/performance.md),
 * and re-lays out about five times the final length over a rollout, against twice for doubling.
 */
export const CAPACITY_GROWTH = 1.25;
/** Capacities are multiples of this many positions (ours). */
export const CAPACITY_ALIGN = 16;

/** The capacity after `capacity` when `needed` positions must fit: a quarter more, aligned, at most maxLen. */
export function grownCapacity(capacity: number, needed: number, maxLen: number): number {
  const wanted = Math.max(needed, Math.ceil(capacity * CAPACITY_GROWTH));
  return Math.min(maxLen, Math.ceil(wanted / CAPACITY_ALIGN) * CAPACITY_ALIGN);
}

/**
 * Host-side KV caches for a batch of rows, laid out [B, Hkv, C, hd] so onnxruntime reads them zero-copy. Capacity C
 * grows by a quarter at a time (grownCapacity) and goes back to the smallest on reset.
 *
 * Each slot is one buffer reserved for the largest capacity; the OS commits its pages only when they are first
 * written, so memory follows the longest rollout so far, not maxLen (which may be max_position_embeddings). Growing
 * re-lays the rows out in place, from the last row down, so no second buffer is ever held; repeated rollouts reuse
 * the committed pages. Growth past what was committed is checked against the available memory first.
 */
export class KvCaches {
  private readonly buffers: Float32Array[];
  private readonly bytesPerPosition: number;
  /** The largest capacity any slot can take (V8 caps one typed array at 2^32 - 1 elements). */
  private readonly capacityLimit: number;
  capacity: number;
  /** Largest capacity laid out so far: positions of every row whose pages are committed. */
  private committed: number;

  constructor(
    readonly batch: number,
    readonly shapes: readonly CacheShape[],
    readonly maxLen: number,
    private readonly minCapacity = 32,
  ) {
    const widest = Math.max(...shapes.map((s) => s.kvHeads * s.headDim));
    this.capacityLimit = Math.min(maxLen, Math.floor(MAX_ELEMENTS / (batch * widest)));
    this.bytesPerPosition = shapes.reduce((a, s) => a + s.kvHeads * s.headDim, 0) * FLOAT_BYTES;
    this.capacity = Math.min(minCapacity, maxLen);
    this.committed = 0;
    this.ensureCommitted(this.capacity);
    this.buffers = shapes.map(({ kvHeads, headDim }) => new Float32Array(batch * kvHeads * this.capacityLimit * headDim));
  }

  /** Each slot's cache at the current capacity, [B, Hkv, C, hd]. */
  get slots(): readonly Float32Array[] {
    return this.buffers.map((buffer, slot) => buffer.subarray(0, this.slotLength(slot, this.capacity)));
  }

  dims(slot: number): number[] {
    const { kvHeads, headDim } = this.shapes[slot];
    return [this.batch, kvHeads, this.capacity, headDim];
  }

  /** Makes room for `needed` positions per row, keeping the first `lengths[b]` positions of each row. */
  reserve(needed: number, lengths: Int32Array): void {
    if (needed <= this.capacity) return;
    let next = grownCapacity(this.capacity, needed, this.maxLen);
    if (next > this.capacityLimit) next = Math.max(needed, this.capacityLimit);
    if (next > this.capacityLimit) {
      fail('MEMORY_INSUFFICIENT', `KV caches for ${this.batch} rows × ${needed} positions exceed the largest array one cache layer can hold (${this.capacityLimit} positions); use fewer rows`, { batch: this.batch, needed });
    }
    this.ensureCommitted(next);
    for (const [slot, { kvHeads, headDim }] of this.shapes.entries()) {
      const buffer = this.buffers[slot];
      for (let row = this.batch * kvHeads - 1; row >= 0; row--) {
        const used = lengths[Math.floor(row / kvHeads)] * headDim;
        const from = row * this.capacity * headDim;
        buffer.copyWithin(row * next * headDim, from, from + used);
      }
    }
    this.capacity = next;
  }

  /** Back to the smallest capacity for a new rollout (committed pages stay). */
  reset(): void {
    this.capacity = Math.min(this.minCapacity, this.maxLen);
  }

  /** Copies `count[b]` new positions of each row, laid out [B,Hkv,S,hd], to positions lengths[b].. of the cache. */
  write(slot: number, fresh: Float32Array, S: number, lengths: Int32Array, counts: Int32Array): void {
    const { kvHeads, headDim } = this.shapes[slot];
    const cache = this.buffers[slot];
    const C = this.capacity;
    for (let b = 0; b < this.batch; b++) {
      const n = counts[b] * headDim;
      if (n === 0) continue;
      for (let h = 0; h < kvHeads; h++) {
        const row = b * kvHeads + h;
        const src = row * S * headDim;
        cache.set(fresh.subarray(src, src + n), (row * C + lengths[b]) * headDim);
      }
    }
  }

  /** Bytes of cache memory committed (every row at the largest capacity reached). */
  get allocatedBytes(): number {
    return this.batch * this.committed * this.bytesPerPosition;
  }

  private slotLength(slot: number, capacity: number): number {
    const { kvHeads, headDim } = this.shapes[slot];
    return this.batch * kvHeads * capacity * headDim;
  }

  private ensureCommitted(capacity: number): void {
    if (capacity <= this.committed) return;
    const grow = (capacity - this.committed) * this.batch * this.bytesPerPosition;
    ensureFits(`KV caches for ${this.batch} rows growing to ${capacity} positions`, grow, { batch: this.batch, positions: capacity });
    this.committed = capacity;
  }
}
