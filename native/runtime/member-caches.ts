import { cacheName, newKvName, presentName } from '../model/decode-graph.ts';
import type { DeviceTensor, Feeds, HostTensor, RunResult } from '../ort.ts';
import { KvCaches, type CacheShape } from './kv-cache.ts';

/** What one run of a decode graph reads of a member's caches: host tensors, and tensors already on the device. */
export interface CacheFeeds {
  host: Feeds;
  resident: Record<string, DeviceTensor>;
}

/**
 * A co-decoded member's KV caches, for every lane: what a run of the decode graph reads (the past keys and values
 * and `past_mask`), and what it makes of the run's outputs. Each lane has read `synced[lane]` tokens of its row.
 */
export interface MemberCaches {
  /** The graph outputs the caches need back. */
  readonly outputs: readonly string[];
  /** Feeds for a run in which lane b reads counts[b] tokens (padded to S) after its synced[b]. */
  feeds(synced: Int32Array, counts: Int32Array): CacheFeeds;
  /** A run's outputs, lane b having read counts[b] of its S new positions. */
  absorb(result: RunResult, S: number, synced: Int32Array, counts: Int32Array): void;
  /** Empties every lane for a new rollout. */
  reset(): void;
  /** Host memory the caches hold. */
  readonly allocatedBytes: number;
  release(): void;
}

const layerNames = (layers: number, name: (layer: number, kind: 'key' | 'value') => string): string[] =>
  Array.from({ length: layers }, (_, i) => [name(i, 'key'), name(i, 'value')]).flat();

/**
 * Caches in host memory (KvCaches, static and preallocated), read zero-copy by the CPU provider; the graph returns only
 * the new positions, written in here. On a GPU every run would copy the whole caches to the device.
 */
export class HostCaches implements MemberCaches {
  readonly outputs: readonly string[];
  private readonly caches: KvCaches;

  constructor(lanes: number, private readonly layers: number, shape: CacheShape, maxLen: number) {
    this.caches = new KvCaches(lanes, Array.from({ length: layers * 2 }, () => shape), maxLen);
    this.outputs = layerNames(layers, newKvName);
  }

  feeds(synced: Int32Array, counts: Int32Array): CacheFeeds {
    let needed = 0;
    for (let lane = 0; lane < synced.length; lane++) needed = Math.max(needed, synced[lane] + counts[lane]);
    this.caches.reserve(needed, synced);
    const C = this.caches.capacity;
    const mask = new Float32Array(synced.length * C);
    for (let lane = 0; lane < synced.length; lane++) mask.fill(-Infinity, lane * C + synced[lane], (lane + 1) * C);
    const host: Feeds = { past_mask: { dtype: 'float32', dims: [synced.length, 1, 1, C], data: mask } };
    const slots = this.caches.slots;
    for (const [slot, name] of layerNames(this.layers, cacheName).entries()) host[name] = { dtype: 'float32', dims: this.caches.dims(slot), data: slots[slot] };
    return { host, resident: {} };
  }

  absorb(result: RunResult, S: number, synced: Int32Array, counts: Int32Array): void {
    for (const [slot, name] of this.outputs.entries()) this.caches.write(slot, result.host[name].data as Float32Array, S, synced, counts);
  }

  reset(): void {
    this.caches.reset();
  }

  get allocatedBytes(): number {
    return this.caches.allocatedBytes;
  }

  release(): void {}
}

/**
 * Caches that stay on the session's device (WebGPU buffers; host tensors on the CPU, where this path is tested): the
 * graph returns each whole cache with the run's S new positions appended (`cache: 'resident'`), and the next run is fed
 * those outputs as they are, so no cache crosses between host and device. Positions are appended, not written at a
 * row's own offset: a lane that read fewer than S tokens leaves invalid slots, masked out by `past_mask` from then
 * on. Slots grow by S a run, so the caches hold the run's widest appends (one per token in lockstep), and each run
 * copies them once on the device: O(length²) device bandwidth over a rollout, against O(length²) host-device traffic
 * for host caches on a GPU. The rollout starts from one masked slot of zeros.
 */
export class ResidentCaches implements MemberCaches {
  readonly outputs: readonly string[];
  private tensors: Record<string, DeviceTensor> = {};
  /** valid[lane · capacity + slot]: 1 where the slot holds a position the lane read. */
  private valid: Uint8Array;
  private capacity: number;
  private slots = 1;

  constructor(private readonly lanes: number, private readonly layers: number, private readonly shape: CacheShape) {
    this.outputs = layerNames(layers, presentName);
    this.capacity = 64;
    this.valid = new Uint8Array(lanes * this.capacity);
  }

  feeds(): CacheFeeds {
    const C = this.slots;
    const mask = new Float32Array(this.lanes * C);
    for (let lane = 0; lane < this.lanes; lane++) for (let slot = 0; slot < C; slot++) if (this.valid[lane * this.capacity + slot] === 0) mask[lane * C + slot] = -Infinity;
    const host: Feeds = { past_mask: { dtype: 'float32', dims: [this.lanes, 1, 1, C], data: mask } };
    const names = layerNames(this.layers, cacheName);
    if (Object.keys(this.tensors).length === 0) {
      const zeros: HostTensor = { dtype: 'float32', dims: [this.lanes, this.shape.kvHeads, 1, this.shape.headDim], data: new Float32Array(this.lanes * this.shape.kvHeads * this.shape.headDim) };
      for (const name of names) host[name] = zeros;
      return { host, resident: {} };
    }
    return { host, resident: Object.fromEntries(names.map((name, i) => [name, this.tensors[this.outputs[i]]])) };
  }

  absorb(result: RunResult, S: number, _synced: Int32Array, counts: Int32Array): void {
    for (const tensor of Object.values(this.tensors)) tensor.dispose();
    this.tensors = result.resident;
    const next = this.slots + S;
    if (next > this.capacity) {
      let capacity = this.capacity;
      while (capacity < next) capacity *= 2;
      const valid = new Uint8Array(this.lanes * capacity);
      for (let lane = 0; lane < this.lanes; lane++) valid.set(this.valid.subarray(lane * this.capacity, lane * this.capacity + this.slots), lane * capacity);
      this.valid = valid;
      this.capacity = capacity;
    }
    for (let lane = 0; lane < this.lanes; lane++) this.valid.fill(1, lane * this.capacity + this.slots, lane * this.capacity + this.slots + counts[lane]);
    this.slots = next;
  }

  reset(): void {
    this.release();
    this.valid.fill(0);
    this.slots = 1;
  }

  /** None: the caches are on the device. */
  get allocatedBytes(): number {
    return 0;
  }

  release(): void {
    for (const tensor of Object.values(this.tensors)) tensor.dispose();
    this.tensors = {};
  }
}
