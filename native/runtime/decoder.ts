import { fail } from '../../core/errors.ts';
import { Session, type Device, type HostTensor } from '../ort.ts';
import { buildDecodeGraph, cacheName, newKvName, probsName, rowsName } from '../model/decode-graph.ts';
import { KvCaches } from './kv-cache.ts';
import { assertSharedTokenizer, type Policy } from './policy.ts';

export interface DecoderOptions {
  /** Rows stepped together; caches are sized for it once. */
  batch: number;
  /**
   * How co-decoded policies keep their caches in sync with the shared sequence. 'lockstep': every policy reads
   * every token as it is written, all in one run (best when the batch makes steps compute-bound). 'lazy': a
   * policy catches up on the tokens written since it last wrote, in one multi-token run, when it is next asked
   * for a distribution (best at small batches, where a step costs one read of the weights). 'auto' (default)
   * picks lazy for batches of at most LAZY_MAX_BATCH rows.
   */
  sync?: 'lockstep' | 'lazy' | 'auto';
  /** Positions per row (prompt + generated) the caches may hold. */
  maxLen: number;
  threads?: number;
  device?: Device;
}

type Resolved = Required<Omit<DecoderOptions, 'device' | 'sync'>> & { device: Device };

export const LAZY_MAX_BATCH = 4;

/** What generation needs from a decoder, whichever way it keeps its policies in sync. */
export interface Decoder {
  readonly policies: readonly Policy[];
  readonly batch: number;
  readonly vocabSize: number;
  /** Tokens of the shared sequence per row. */
  readonly lengths: Int32Array;
  readonly cacheBytes: number;
  setTemperature(temperatures: number | ArrayLike<number>): void;
  updatePolicy(index: number, policy: Policy): Promise<void>;
  prefill(prompts: readonly (readonly number[])[], route?: Route): Promise<Distributions>;
  append(chunks: readonly (readonly number[])[], route?: Route): Promise<Distributions>;
  step(tokens: ArrayLike<number>, route?: Route): Promise<Distributions>;
  release(): Promise<void>;
}

export const Decoder = {
  async create(policies: Policy[], options: DecoderOptions): Promise<Decoder> {
    const lazy = policies.length > 1 && (options.sync === 'lazy' || ((options.sync ?? 'auto') === 'auto' && options.batch <= LAZY_MAX_BATCH));
    if (!lazy) return LockstepDecoder.create(policies, options);
    const { LazyDecoder } = await import('./lazy-decoder.ts');
    return LazyDecoder.create(policies, options);
  },
};

/**
 * Which policy's next-token distribution each row needs: `authors[row]` is a policy index, or -1 for none.
 * Omitted: every policy, every row (needed for partner log-probabilities).
 */
export type Route = Int32Array | null;

/** Next-token probabilities after a decoder call, looked up by (policy, row); valid until the decoder's next call. */
export class Distributions {
  constructor(
    readonly probs: readonly Float32Array[],
    readonly index: readonly Int32Array[],
    readonly vocabSize: number,
  ) {}

  /** The probabilities `policy` gives the next token of `row`, or null when that pair was not computed. */
  of(policy: number, row: number): Float32Array | null {
    const i = this.index[policy][row];
    return i < 0 ? null : this.probs[policy].subarray(i * this.vocabSize, (i + 1) * this.vocabSize);
  }
}

/**
 * Steps one or more policies in lockstep over the same rows. Each call appends tokens to every row at its own
 * position; all policies read the same tokens, so their caches always hold the same shared sequence. One
 * onnxruntime run per call covers every policy. Returns next-token probabilities, [batch × vocab] per policy.
 */
export class LockstepDecoder implements Decoder {
  readonly lengths: Int32Array;
  private readonly caches: KvCaches;
  private readonly counts: Int32Array;
  private readonly invTemperature: Float32Array;
  private readonly stepPositions: BigInt64Array;
  private readonly stepIds: BigInt64Array;
  private readonly zeroIndex: BigInt64Array;
  private readonly stepMask = Float32Array.of(0);
  private pastMask = new Float32Array(0);
  private readonly rowIndex: Int32Array[];

  private constructor(
    private session: Session,
    readonly policies: readonly Policy[],
    readonly options: Resolved,
  ) {
    const { batch, maxLen } = options;
    this.lengths = new Int32Array(batch);
    this.counts = new Int32Array(batch);
    this.invTemperature = new Float32Array(batch).fill(1);
    this.stepPositions = new BigInt64Array(batch);
    this.stepIds = new BigInt64Array(batch);
    this.zeroIndex = new BigInt64Array(batch);
    const shapes = policies.flatMap((p) => Array.from({ length: p.config.numLayers * 2 }, () => ({ kvHeads: p.config.numKvHeads, headDim: p.config.headDim })));
    this.caches = new KvCaches(batch, shapes, maxLen);
    this.rowIndex = policies.map(() => new Int32Array(batch));
  }

  static async create(policies: Policy[], options: DecoderOptions): Promise<LockstepDecoder> {
    if (policies.length === 0) fail('INPUT_INVALID', 'a decoder needs at least one policy');
    if (!(options.batch >= 1 && options.maxLen >= 2)) fail('INPUT_INVALID', `decoder needs batch >= 1 and maxLen >= 2 (got ${options.batch}, ${options.maxLen})`);
    assertSharedTokenizer(policies);
    const resolved: Resolved = { threads: options.threads ?? 0, device: options.device ?? 'cpu', batch: options.batch, maxLen: options.maxLen };
    return new LockstepDecoder(await LockstepDecoder.compile(policies, resolved), policies, resolved);
  }

  private static async compile(policies: readonly Policy[], options: Resolved): Promise<Session> {
    const graph = buildDecodeGraph(
      policies.map((p, m) => ({ config: p.config, weights: p.weights, prefix: prefixOf(m) })),
      { maxLen: options.maxLen, output: 'last' },
    );
    return Session.create(graph.toBytes(), { threads: options.threads, device: options.device, label: `decode(${policies.map((p) => p.name).join('+')})` });
  }

  get batch(): number {
    return this.options.batch;
  }

  get vocabSize(): number {
    return this.policies[0].config.vocabSize;
  }

  get cacheBytes(): number {
    return this.caches.allocatedBytes;
  }

  /** Sampling temperature per row (0 is treated as 1 here: greedy decoding takes the argmax of the same probabilities). */
  setTemperature(temperatures: number | ArrayLike<number>): void {
    for (let row = 0; row < this.batch; row++) {
      const t = typeof temperatures === 'number' ? temperatures : temperatures[row];
      this.invTemperature[row] = t > 0 ? 1 / t : 1;
    }
  }

  /** Replaces a policy's weights (after an optimizer step); the caches are kept. */
  async updatePolicy(index: number, policy: Policy): Promise<void> {
    const policies = this.policies.map((p, i) => (i === index ? policy : p));
    assertSharedTokenizer(policies);
    const next = await LockstepDecoder.compile(policies, this.options);
    await this.session.release();
    this.session = next;
    (this as { policies: readonly Policy[] }).policies = policies;
  }

  /** Empties every row. */
  reset(): void {
    this.lengths.fill(0);
    this.caches.reset();
  }

  /** Starts every row afresh from its prompt. */
  async prefill(prompts: readonly (readonly number[])[], route: Route = null): Promise<Distributions> {
    this.reset();
    for (const [row, prompt] of prompts.entries()) if (prompt.length === 0) fail('INPUT_INVALID', `prompt ${row} is empty`, { row });
    return this.append(prompts, route);
  }

  /**
   * Appends each row's chunk (ragged, possibly empty) after its cached prefix. The probabilities of a row are those
   * after its last appended token; rows that appended nothing get meaningless values.
   */
  async append(chunks: readonly (readonly number[])[], route: Route = null): Promise<Distributions> {
    const { batch } = this.options;
    if (chunks.length !== batch) fail('INPUT_INVALID', `append needs ${batch} rows, got ${chunks.length}`);
    const S = Math.max(1, ...chunks.map((c) => c.length));
    const ids = new BigInt64Array(batch * S);
    const positions = new BigInt64Array(batch * S);
    const lastIndex = new BigInt64Array(batch);
    for (const [row, chunk] of chunks.entries()) {
      this.counts[row] = chunk.length;
      for (let s = 0; s < S; s++) {
        ids[row * S + s] = BigInt(s < chunk.length ? chunk[s] : 0);
        positions[row * S + s] = BigInt(Math.min(this.lengths[row] + s, this.options.maxLen - 1));
      }
      lastIndex[row] = BigInt(Math.max(chunk.length - 1, 0));
    }
    const chunkMask = new Float32Array(S * S);
    for (let i = 0; i < S; i++) for (let j = i + 1; j < S; j++) chunkMask[i * S + j] = -Infinity;
    return this.run(
      { dtype: 'int64', dims: [batch, S], data: ids },
      { dtype: 'int64', dims: [batch, S], data: positions },
      { dtype: 'float32', dims: [S, S], data: chunkMask },
      lastIndex,
      S,
      route,
    );
  }

  /** Appends one token to every row: the decode fast path. */
  async step(tokens: ArrayLike<number>, route: Route = null): Promise<Distributions> {
    const { batch } = this.options;
    for (let row = 0; row < batch; row++) {
      this.stepIds[row] = BigInt(tokens[row]);
      this.stepPositions[row] = BigInt(this.lengths[row]);
      this.counts[row] = 1;
    }
    return this.run(
      { dtype: 'int64', dims: [batch, 1], data: this.stepIds },
      { dtype: 'int64', dims: [batch, 1], data: this.stepPositions },
      { dtype: 'float32', dims: [1, 1], data: this.stepMask },
      this.zeroIndex,
      1,
      route,
    );
  }

  private async run(ids: HostTensor, positions: HostTensor, chunkMask: HostTensor, lastIndex: BigInt64Array, S: number, route: Route): Promise<Distributions> {
    const { batch, maxLen } = this.options;
    let needed = 0;
    for (let row = 0; row < batch; row++) {
      const end = this.lengths[row] + this.counts[row];
      if (end > maxLen) fail('SEQUENCE_TOO_LONG', `row ${row} would reach ${end} positions, past the cache capacity of ${maxLen}`, { row, maxLen });
      needed = Math.max(needed, end);
    }
    this.caches.reserve(needed, this.lengths);
    const C = this.caches.capacity;
    if (this.pastMask.length !== batch * C) this.pastMask = new Float32Array(batch * C);
    for (let row = 0; row < batch; row++) {
      const mask = this.pastMask.subarray(row * C, (row + 1) * C);
      mask.fill(0, 0, this.lengths[row]);
      mask.fill(-Infinity, this.lengths[row]);
    }
    const feeds: Record<string, HostTensor> = {
      input_ids: ids,
      position_ids: positions,
      past_mask: { dtype: 'float32', dims: [batch, 1, 1, C], data: this.pastMask },
      chunk_mask: chunkMask,
      inv_temperature: { dtype: 'float32', dims: [batch, 1], data: this.invTemperature },
      last_index: { dtype: 'int64', dims: [batch], data: lastIndex },
    };
    const outputs: string[] = [];
    let slot = 0;
    for (const [m, policy] of this.policies.entries()) {
      outputs.push(probsName(prefixOf(m)));
      feeds[rowsName(prefixOf(m))] = this.routeRows(m, route);
      for (let layer = 0; layer < policy.config.numLayers; layer++) {
        for (const kind of ['key', 'value'] as const) {
          feeds[cacheName(prefixOf(m), layer, kind)] = { dtype: 'float32', dims: this.caches.dims(slot), data: this.caches.slots[slot] };
          outputs.push(newKvName(prefixOf(m), layer, kind));
          slot += 1;
        }
      }
    }
    const result = await this.session.run(feeds, outputs);
    slot = 0;
    for (const [m, policy] of this.policies.entries()) {
      for (let layer = 0; layer < policy.config.numLayers; layer++) {
        for (const kind of ['key', 'value'] as const) {
          this.caches.write(slot, result[newKvName(prefixOf(m), layer, kind)].data as Float32Array, S, this.lengths, this.counts);
          slot += 1;
        }
      }
    }
    for (let row = 0; row < batch; row++) this.lengths[row] += this.counts[row];
    const probs = this.policies.map((_, m) => result[probsName(prefixOf(m))].data as Float32Array);
    return new Distributions(probs, this.rowIndex, this.vocabSize);
  }

  private routeRows(policy: number, route: Route): HostTensor {
    const index = this.rowIndex[policy];
    const rows: bigint[] = [];
    for (let row = 0; row < this.batch; row++) {
      const wanted = route === null || route[row] === policy;
      index[row] = wanted ? rows.length : -1;
      if (wanted) rows.push(BigInt(row));
    }
    return { dtype: 'int64', dims: [rows.length], data: BigInt64Array.from(rows) };
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

const prefixOf = (m: number): string => `m${m}.`;
