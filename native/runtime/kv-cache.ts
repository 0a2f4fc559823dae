/**
 * Host-side KV caches for a batch of rows, laid out [B, Hkv, C, hd] so onnxruntime reads them zero-copy.
 * Capacity C grows by doubling (straight to maxLen once past half of it) with the used prefix of each row copied over; every capacity's
 * buffers are kept, so repeated rollouts reuse memory instead of allocating it again.
 */
export interface CacheShape {
  kvHeads: number;
  headDim: number;
}

export class KvCaches {
  private readonly pool = new Map<number, Float32Array[]>();
  private current: Float32Array[];
  capacity: number;

  constructor(
    readonly batch: number,
    readonly shapes: readonly CacheShape[],
    readonly maxLen: number,
    private readonly minCapacity = 32,
  ) {
    this.capacity = Math.min(minCapacity, maxLen);
    this.current = this.buffers(this.capacity);
  }

  get slots(): readonly Float32Array[] {
    return this.current;
  }

  dims(slot: number): number[] {
    const { kvHeads, headDim } = this.shapes[slot];
    return [this.batch, kvHeads, this.capacity, headDim];
  }

  /** Makes room for `needed` positions per row, keeping the first `lengths[b]` positions of each row. */
  reserve(needed: number, lengths: Int32Array): void {
    if (needed <= this.capacity) return;
    let next = this.capacity;
    while (next < needed) next *= 2;
    // Past half the maximum, go straight to it: a last step from 2^k to a maxLen just above would hold both.
    if (next * 2 > this.maxLen) next = this.maxLen;
    const target = this.buffers(next);
    for (const [slot, { kvHeads, headDim }] of this.shapes.entries()) {
      const from = this.current[slot];
      const to = target[slot];
      for (let b = 0; b < this.batch; b++) {
        const used = lengths[b] * headDim;
        for (let h = 0; h < kvHeads; h++) {
          const row = b * kvHeads + h;
          to.set(from.subarray(row * this.capacity * headDim, row * this.capacity * headDim + used), row * next * headDim);
        }
      }
    }
    this.current = target;
    this.capacity = next;
  }

  /** Back to the smallest capacity for a new rollout (buffers stay allocated). */
  reset(): void {
    this.capacity = Math.min(this.minCapacity, this.maxLen);
    this.current = this.buffers(this.capacity);
  }

  /** Copies `count[b]` new positions of each row, laid out [B,Hkv,S,hd], to positions lengths[b].. of the cache. */
  write(slot: number, fresh: Float32Array, S: number, lengths: Int32Array, counts: Int32Array): void {
    const { kvHeads, headDim } = this.shapes[slot];
    const cache = this.current[slot];
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

  private buffers(capacity: number): Float32Array[] {
    let buffers = this.pool.get(capacity);
    if (!buffers) {
      buffers = this.shapes.map(({ kvHeads, headDim }) => new Float32Array(this.batch * kvHeads * capacity * headDim));
      this.pool.set(capacity, buffers);
    }
    return buffers;
  }

  get allocatedBytes(): number {
    let bytes = 0;
    for (const buffers of this.pool.values()) for (const b of buffers) bytes += b.byteLength;
    return bytes;
  }
}
