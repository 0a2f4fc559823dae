import { fail } from '../../core/errors.ts';
import { Session, type Device, type HostTensor } from '../ort.ts';
import { buildDecodeGraph, cacheName, inputName, newKvName, probsName, rowsName } from '../model/decode-graph.ts';
import { KvCaches } from './kv-cache.ts';
import { assertSharedTokenizer, type Policy } from './policy.ts';

export interface DecoderOptions {
  /** Rows stepped together; caches are sized for it once. */
  batch: number;
  /** Positions per row (prompt + generated) the caches may hold. */
  maxLen: number;
  /**
   * How co-decoded policies keep their caches in sync with the shared sequence. 'lockstep': every policy reads
   * every token as it is written (best when the batch makes a step compute-bound). 'lazy': a policy reads the
   * tokens written since it last wrote in one multi-token pass, when it is next asked for a distribution (best at
   * small batches, where a step costs about one read of the weights whatever its width). Either way one
   * onnxruntime run per call steps exactly the policies with work. 'auto' (default): lazy up to LAZY_MAX_BATCH rows.
   */
  sync?: 'lockstep' | 'lazy' | 'auto';
  threads?: number;
  device?: Device;
}

export const LAZY_MAX_BATCH = 4;

/**
 * Which policy's next-token distribution each row needs: `route[row]` is a policy index, or -1 for none.
 * null: every policy, every row (needed for partner log-probabilities).
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

/** One co-decoded policy: its caches, how far it has read the shared sequence, and what it has yet to read. */
interface Member {
  policy: Policy;
  prefix: string;
  caches: KvCaches;
  synced: Int32Array;
  pending: number[][];
  rowIndex: Int32Array;
}

type Resolved = { batch: number; maxLen: number; threads: number; device: Device; lazy: boolean };

/**
 * Steps one or more policies over the same rows, each row appending tokens at its own position. The policies
 * share one token stream; a row's author decides whose distribution is asked for (the route). One onnxruntime run
 * per call covers every policy that has work; caches and buffers are allocated once and reused across rollouts.
 */
export class Decoder {
  readonly lengths: Int32Array;
  private readonly members: Member[];
  private readonly invTemperature: Float32Array;

  private constructor(
    private session: Session,
    policies: readonly Policy[],
    readonly options: Resolved,
  ) {
    const { batch, maxLen } = options;
    this.lengths = new Int32Array(batch);
    this.invTemperature = new Float32Array(batch).fill(1);
    this.members = policies.map((policy, m) => ({
      policy,
      prefix: prefixOf(m, policies.length),
      caches: new KvCaches(batch, Array.from({ length: policy.config.numLayers * 2 }, () => ({ kvHeads: policy.config.numKvHeads, headDim: policy.config.headDim })), maxLen),
      synced: new Int32Array(batch),
      pending: Array.from({ length: batch }, () => []),
      rowIndex: new Int32Array(batch),
    }));
  }

  static async create(policies: Policy[], options: DecoderOptions): Promise<Decoder> {
    if (policies.length === 0) fail('INPUT_INVALID', 'a decoder needs at least one policy');
    if (!(options.batch >= 1 && options.maxLen >= 2)) fail('INPUT_INVALID', `decoder needs batch >= 1 and maxLen >= 2 (got ${options.batch}, ${options.maxLen})`);
    assertSharedTokenizer(policies);
    const sync = options.sync ?? 'auto';
    const resolved: Resolved = {
      batch: options.batch,
      maxLen: options.maxLen,
      threads: options.threads ?? 0,
      device: options.device ?? 'cpu',
      lazy: sync === 'lazy' || (sync === 'auto' && options.batch <= LAZY_MAX_BATCH),
    };
    return new Decoder(await Decoder.compile(policies, resolved), policies, resolved);
  }

  private static async compile(policies: readonly Policy[], options: Resolved): Promise<Session> {
    const graph = buildDecodeGraph(
      policies.map((p, m) => ({ config: p.config, weights: p.weights, prefix: prefixOf(m, policies.length) })),
      { maxLen: options.maxLen, output: 'last' },
    );
    return Session.create(graph.toBytes(), { threads: options.threads, device: options.device, label: `decode(${policies.map((p) => p.name).join('+')})` });
  }

  get policies(): readonly Policy[] {
    return this.members.map((m) => m.policy);
  }

  get batch(): number {
    return this.options.batch;
  }

  get vocabSize(): number {
    return this.members[0].policy.config.vocabSize;
  }

  get cacheBytes(): number {
    return this.members.reduce((a, m) => a + m.caches.allocatedBytes, 0);
  }

  /** Sampling temperature per row (0 is treated as 1 here: greedy decoding takes the argmax of the same probabilities). */
  setTemperature(temperatures: number | ArrayLike<number>): void {
    for (let row = 0; row < this.batch; row++) {
      const t = typeof temperatures === 'number' ? temperatures : temperatures[row];
      this.invTemperature[row] = t > 0 ? 1 / t : 1;
    }
  }

  /** Replaces a policy's weights (after an optimizer step); caches and positions are kept. */
  async updatePolicy(index: number, policy: Policy): Promise<void> {
    const policies = this.policies.map((p, i) => (i === index ? policy : p));
    assertSharedTokenizer(policies);
    const next = await Decoder.compile(policies, this.options);
    await this.session.release();
    this.session = next;
    this.members[index].policy = policy;
  }

  /** Empties every row. */
  reset(): void {
    this.lengths.fill(0);
    for (const member of this.members) {
      member.caches.reset();
      member.synced.fill(0);
      for (const queue of member.pending) queue.length = 0;
    }
  }

  /** Starts every row afresh from its prompt. */
  async prefill(prompts: readonly (readonly number[])[], route: Route = null): Promise<Distributions> {
    this.reset();
    for (const [row, prompt] of prompts.entries()) if (prompt.length === 0) fail('INPUT_INVALID', `prompt ${row} is empty`, { row });
    return this.append(prompts, route);
  }

  /** Appends each row's chunk (ragged, possibly empty) to the shared sequence. */
  async append(chunks: readonly (readonly number[])[], route: Route = null): Promise<Distributions> {
    if (chunks.length !== this.batch) fail('INPUT_INVALID', `append needs ${this.batch} rows, got ${chunks.length}`);
    for (const [row, chunk] of chunks.entries()) {
      this.extend(row, chunk.length);
      for (const member of this.members) for (const token of chunk) member.pending[row].push(token);
    }
    return this.flush(route);
  }

  /** Appends one token to every row. */
  async step(tokens: ArrayLike<number>, route: Route = null): Promise<Distributions> {
    for (let row = 0; row < this.batch; row++) {
      this.extend(row, 1);
      for (const member of this.members) member.pending[row].push(tokens[row]);
    }
    return this.flush(route);
  }

  private extend(row: number, count: number): void {
    const end = this.lengths[row] + count;
    if (end > this.options.maxLen) fail('SEQUENCE_TOO_LONG', `row ${row} would reach ${end} positions, past the cache capacity of ${this.options.maxLen}`, { row, maxLen: this.options.maxLen });
    this.lengths[row] = end;
  }

  /** Lets each policy read its pending tokens (all of them in lockstep; only where it owes a distribution when lazy). */
  private async flush(route: Route): Promise<Distributions> {
    const { batch } = this.options;
    const gated = this.members.length > 1;
    const feeds: Record<string, HostTensor> = {};
    const outputs: string[] = [];
    const work: Array<{ member: Member; chunks: number[][]; S: number } | null> = [];
    for (const [m, member] of this.members.entries()) {
      const chunks: number[][] = [];
      const rows: bigint[] = [];
      for (let row = 0; row < batch; row++) {
        const owed = route === null || route[row] === m;
        const queue = member.pending[row];
        if (owed && queue.length === 0) fail('INPUT_INVALID', `policy ${m} was asked again about row ${row} with no new token`, { row });
        chunks.push(owed || !this.options.lazy ? queue.splice(0) : []);
        member.rowIndex[row] = owed ? rows.length : -1;
        if (owed) rows.push(BigInt(row));
      }
      const S = Math.max(0, ...chunks.map((c) => c.length));
      const active = S > 0;
      work.push(active ? { member, chunks, S } : null);
      Object.assign(feeds, active ? this.memberFeeds(member, chunks, S) : this.idleFeeds(member));
      feeds[rowsName(member.prefix)] = { dtype: 'int64', dims: [rows.length], data: BigInt64Array.from(rows) };
      if (gated) feeds[inputName(member.prefix, 'active')] = { dtype: 'bool', dims: [], data: Uint8Array.of(active ? 1 : 0) };
      outputs.push(probsName(member.prefix));
      for (let layer = 0; layer < member.policy.config.numLayers; layer++) outputs.push(newKvName(member.prefix, layer, 'key'), newKvName(member.prefix, layer, 'value'));
    }
    const result = await this.session.run(feeds, outputs);
    for (const item of work) {
      if (!item) continue;
      const { member, chunks, S } = item;
      const counts = Int32Array.from(chunks, (c) => c.length);
      let slot = 0;
      for (let layer = 0; layer < member.policy.config.numLayers; layer++) {
        for (const kind of ['key', 'value'] as const) {
          member.caches.write(slot++, result[newKvName(member.prefix, layer, kind)].data as Float32Array, S, member.synced, counts);
        }
      }
      for (let row = 0; row < batch; row++) member.synced[row] += counts[row];
    }
    return new Distributions(
      this.members.map((member) => result[probsName(member.prefix)].data as Float32Array),
      this.members.map((member) => member.rowIndex),
      this.vocabSize,
    );
  }

  private memberFeeds(member: Member, chunks: number[][], S: number): Record<string, HostTensor> {
    const { batch, maxLen } = this.options;
    const ids = new BigInt64Array(batch * S);
    const positions = new BigInt64Array(batch * S);
    const lastIndex = new BigInt64Array(batch);
    let needed = 0;
    for (const [row, chunk] of chunks.entries()) {
      const start = member.synced[row];
      needed = Math.max(needed, start + chunk.length);
      for (let s = 0; s < S; s++) {
        ids[row * S + s] = BigInt(s < chunk.length ? chunk[s] : 0);
        positions[row * S + s] = BigInt(Math.min(start + s, maxLen - 1));
      }
      lastIndex[row] = BigInt(Math.max(chunk.length - 1, 0));
    }
    member.caches.reserve(needed, member.synced);
    const C = member.caches.capacity;
    const pastMask = new Float32Array(batch * C);
    for (let row = 0; row < batch; row++) pastMask.fill(-Infinity, row * C + member.synced[row], (row + 1) * C);
    const chunkMask = new Float32Array(S * S);
    for (let i = 0; i < S; i++) chunkMask.fill(-Infinity, i * S + i + 1, (i + 1) * S);
    return {
      [inputName(member.prefix, 'input_ids')]: { dtype: 'int64', dims: [batch, S], data: ids },
      [inputName(member.prefix, 'position_ids')]: { dtype: 'int64', dims: [batch, S], data: positions },
      [inputName(member.prefix, 'past_mask')]: { dtype: 'float32', dims: [batch, 1, 1, C], data: pastMask },
      [inputName(member.prefix, 'chunk_mask')]: { dtype: 'float32', dims: [S, S], data: chunkMask },
      [inputName(member.prefix, 'inv_temperature')]: { dtype: 'float32', dims: [batch, 1], data: this.invTemperature },
      [inputName(member.prefix, 'last_index')]: { dtype: 'int64', dims: [batch], data: lastIndex },
      ...this.cacheFeeds(member),
    };
  }

  /** Placeholders for a member that does not run this call (its If branch reads none of them). */
  private idleFeeds(member: Member): Record<string, HostTensor> {
    const { batch } = this.options;
    const C = member.caches.capacity;
    return {
      [inputName(member.prefix, 'input_ids')]: { dtype: 'int64', dims: [batch, 1], data: new BigInt64Array(batch) },
      [inputName(member.prefix, 'position_ids')]: { dtype: 'int64', dims: [batch, 1], data: new BigInt64Array(batch) },
      [inputName(member.prefix, 'past_mask')]: { dtype: 'float32', dims: [batch, 1, 1, C], data: new Float32Array(batch * C) },
      [inputName(member.prefix, 'chunk_mask')]: { dtype: 'float32', dims: [1, 1], data: new Float32Array(1) },
      [inputName(member.prefix, 'inv_temperature')]: { dtype: 'float32', dims: [batch, 1], data: this.invTemperature },
      [inputName(member.prefix, 'last_index')]: { dtype: 'int64', dims: [batch], data: new BigInt64Array(batch) },
      ...this.cacheFeeds(member),
    };
  }

  private cacheFeeds(member: Member): Record<string, HostTensor> {
    const feeds: Record<string, HostTensor> = {};
    let slot = 0;
    for (let layer = 0; layer < member.policy.config.numLayers; layer++) {
      for (const kind of ['key', 'value'] as const) {
        feeds[cacheName(member.prefix, layer, kind)] = { dtype: 'float32', dims: member.caches.dims(slot), data: member.caches.slots[slot] };
        slot += 1;
      }
    }
    return feeds;
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

/** A lone policy keeps the plain input names (what the scorer and tools expect); partners are prefixed. */
const prefixOf = (m: number, count: number): string => (count === 1 ? '' : `m${m}.`);
