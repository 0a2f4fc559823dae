import { entryOf, fail, present } from '../../core/errors.ts';
import type { Device, Feeds, HostTensor, Session } from '../ort.ts';
import { RotaryTables } from '../model/rotary-tables.ts';
import { HostCaches, ResidentCaches, type MemberCaches } from './member-caches.ts';
import { architectureKey, decoderBinding, openModelSession, resolveBinding, weightFeeds, type WeightBinding } from './model-session.ts';
import { assertSharedTokenizer, type Policy } from './policy.ts';
import { baseOf, stackAdapters, unstackableReason, writeStackSlice } from '../model/lora.ts';
import type { Weights } from '../model/weights.ts';
import type { OpSet } from '../model/op-set.ts';

export interface DecoderOptions {
  /** Rows stepped together; caches are sized for it once. */
  batch: number;
  /** Positions per row (prompt + generated) the caches may hold. */
  maxLen: number;
  /**
   * How co-decoded policies keep their caches in sync with the shared sequence. 'lockstep': every policy reads
   * every token as it is written (best when the batch makes a step compute-bound). 'lazy': a policy defers the
   * tokens written since it last wrote and reads them in one multi-token pass when it is next asked for a
   * distribution (best at small batches, where a step costs about one read of the weights whatever its width); the
   * prompt too, and a span it is never asked about (the end of a turn its partner wrote) is never read. In lockstep a
   * policy that owes no row in a step defers that whole step. Either way one onnxruntime run per policy with work
   * steps it. 'auto' (default): lazy up to LAZY_MAX_BATCH rows.
   */
  sync?: 'lockstep' | 'lazy' | 'auto';
  threads?: number;
  device?: Device;
  /**
   * How the weights reach onnxruntime (WeightBinding), for every member. Default, per member (decoderBinding):
   * initializers on a GPU and for small models on the CPU; a large model baked while its policy is not updated and
   * memory allows, inputs once it is (or when memory does not allow).
   */
  weights?: WeightBinding;
  /** Models up to this many bytes stay baked in on the CPU even when updated (decoderBinding); default BAKED_MAX_BYTES. */
  bakeMaxBytes?: number;
  /** Memory a large frozen model's baked copy must leave to others (a trainer's learner runs); default 0 (decoderBinding). */
  reservedBytes?: number;
  /** The ops the graphs are written in (OpSet); default by device. */
  opSet?: OpSet;
  /**
   * Where the KV caches live: 'host' (HostCaches: static, in this process's memory, read zero-copy by the CPU) or
   * 'resident' (ResidentCaches: kept on the session's device between runs, never copied through the host). Default:
   * resident under WebGPU, whose node binding returns outputs as GPU buffers; host elsewhere (CUDA's node binding
   * returns every output to host memory, so a resident cache would cross twice a step).
   */
  cache?: 'host' | 'resident';
  /**
   * The policies are LoRA adapters of one shape over one shared base (unstackableReason): each row is written by one
   * of them (its route, which must not change within a rollout), and every step is ONE run over all rows, the base's
   * matmuls shared and each row's low-rank update taken from its own adapter (S-LoRA/Punica-style multi-adapter
   * batching), with one set of caches. The adapters are copied into the stacks the graph reads; updatePolicy re-copies
   * the one that changed. A policy without an adapter over the same base arrays is the base itself: its rows take no
   * low-rank update (an adapter index that matches no adapter, so the update is exactly zero). Weights as inputs only;
   * no partner distributions (route null is refused) unless `coDecoded`.
   */
  stacked?: boolean;
  /**
   * With `stacked`: the policies co-decode, as a decoder of one member per policy would (a tandem senior that is an
   * adapter over its junior, the base). Every row has a lane per policy, each with its own caches reading the shared
   * sequence and its own adapter, and all lanes with work go in ONE run per step: the route may change within a
   * rollout (a schedule's authors) and may be null (every policy's distribution of every row, for partner
   * log-probabilities). Lanes read and defer tokens as the members would ('lazy' or 'lockstep').
   */
  coDecoded?: boolean;
}

export const LAZY_MAX_BATCH = 4;

/**
 * Prompt tokens a prefill run reads per row at most (about; see `prefill`). Ours, measured on the last-letter base:
 * one run over 64 prompts of 700-1,000 tokens (a verifier's, reading a solution) took the process to 4.6-17 GB,
 * onnxruntime's arena growing with every new prompt length, and 10-17 s a prefill; in pieces of 128 it stayed under
 * 2 GB at 4-6 s (pieces of 256: 2.7 GB, 6-7 s).
 */
export const PREFILL_PIECE = 128;

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
  /** Key of the session it runs in (shared by members that can share one). */
  sessionKey: string;
  /** How its weights reach onnxruntime (decoderBinding): chosen when it is bound, per member. */
  binding: WeightBinding;
  /** Whether its policy has been replaced since the decoder opened (updatePolicy): a large model is then kept as inputs. */
  updated: boolean;
  /** Its weights as graph inputs ('inputs' binding), built once: the arrays are the policy's own, updated in place by a learner. */
  weightFeeds: Feeds;
  rope: RotaryTables;
  caches: MemberCaches;
  synced: Int32Array;
  pending: number[][];
  rowIndex: Int32Array;
}

type Resolved = { batch: number; maxLen: number; threads: number; device: Device; lazy: boolean; weights?: WeightBinding; bakeMaxBytes?: number; reservedBytes?: number; opSet?: OpSet; cache: 'host' | 'resident' };

/** A stacked decoder's adapters: the policies, their copies as the graph's stacks, and each lane's adapter. */
interface Stack {
  policies: Policy[];
  /** Each policy's adapter in the stacks, or -1 for the base itself (no adapter: a zero update). */
  slices: Int32Array;
  tensors: Weights;
  /** Lanes per row: 1 (a row is written by one adapter) or one per policy (`coDecoded`: lane m·batch + row). */
  lanesPerRow: number;
  adapterIndex: BigInt64Array;
  /** Distributions' lookup per adapter: the row's place in the run's outputs, or -1. */
  index: Int32Array[];
}

const EMPTY = new Float32Array(0);

/**
 * Steps one or more policies over the same rows, each row appending tokens at its own position. The policies
 * share one token stream; a row's author decides whose distribution is asked for (the route). Each policy with
 * work is one onnxruntime run of its model's graph; policies of one architecture share one session (with weights
 * as inputs, each run feeds its own), so there is no control flow in the graph and nothing is compiled when a
 * trained policy's weights change. Caches and buffers are allocated once and reused across rollouts.
 */
export class Decoder {
  readonly lengths: Int32Array;
  private readonly members: Member[];
  private readonly invTemperature: Float32Array;
  private readonly sessions = new Map<string, Session>();
  /** Bumped by updatePolicy so a policy whose weights are baked into a session ('initializers') gets a new one. */
  private generation = 0;
  /** Set for a decoder of stacked adapters (DecoderOptions.stacked): its one member runs them all. */
  private stack: Stack | null = null;
  /** onnxruntime runs made so far (one per member with work per step; one per step when stacked). */
  runs = 0;
  /** Rows the last step gave no token (finished): no member owes them a distribution, even unrouted. */
  private readonly idle: Uint8Array;

  /** `lanesPerRow`: caches per row in each member (more than one only for a co-decoded stack). */
  private constructor(
    policies: readonly Policy[],
    readonly options: Resolved,
    lanesPerRow = 1,
  ) {
    const { batch, maxLen } = options;
    const lanes = batch * lanesPerRow;
    this.lengths = new Int32Array(batch);
    this.idle = new Uint8Array(batch);
    this.invTemperature = new Float32Array(lanes).fill(1);
    this.members = policies.map((policy) => ({
      policy,
      sessionKey: '',
      binding: 'inputs',
      updated: false,
      weightFeeds: {},
      rope: new RotaryTables(policy.config),
      caches: (() => {
        const shape = { kvHeads: policy.config.numKvHeads, headDim: policy.config.headDim };
        return options.cache === 'resident' ? new ResidentCaches(lanes, policy.config.numLayers, shape) : new HostCaches(lanes, policy.config.numLayers, shape, maxLen);
      })(),
      synced: new Int32Array(lanes),
      pending: Array.from({ length: lanes }, () => []),
      rowIndex: new Int32Array(lanes),
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
      weights: options.stacked ? resolveBinding(options) : options.weights,
      bakeMaxBytes: options.bakeMaxBytes,
      reservedBytes: options.reservedBytes,
      opSet: options.opSet,
      cache: options.cache ?? (options.device === 'webgpu' ? 'resident' : 'host'),
    };
    if (options.coDecoded && !options.stacked) fail('INPUT_INVALID', 'coDecoded is an option of a decoder of stacked adapters (stacked: true)');
    if (options.stacked) {
      const why = unstackableReason(policies);
      if (why) fail('INPUT_INVALID', `a decoder of stacked adapters: ${why}`, { policies: policies.map((p) => p.name) });
      if (resolved.weights !== 'inputs') fail('INPUT_INVALID', 'a decoder of stacked adapters needs weights bound as inputs');
    }
    const lanesPerRow = options.coDecoded ? policies.length : 1;
    // A stacked decoder's one member runs the graph of an adapted config (the base's own rows take a zero update).
    const decoder = new Decoder(options.stacked ? [present(policies.find((p) => p.config.lora), 'a policy with an adapter to stack')] : policies, resolved, lanesPerRow);
    if (options.stacked) {
      decoder.stack = { policies: [...policies], slices: new Int32Array(0), tensors: new Map(), lanesPerRow, adapterIndex: new BigInt64Array(resolved.batch * lanesPerRow), index: [] };
    }
    try {
      if (decoder.stack) decoder.restack(decoder.stack.policies);
      for (const member of decoder.members) await decoder.bind(member, member.policy);
    } catch (error) {
      await decoder.release();
      throw error;
    }
    return decoder;
  }

  /** Points a member at `policy`: the session its architecture (or, baked in, its weights) needs, opened if new. */
  private async bind(member: Member, policy: Policy): Promise<void> {
    const stack = this.stack;
    const stacked = stack !== null;
    member.binding = stacked ? 'inputs' : decoderBinding(this.options, policy.weights, member.updated, this.options.bakeMaxBytes, this.options.reservedBytes);
    const baked = member.binding === 'initializers';
    const key = baked ? `weights:${weightsId(policy)}:${this.generation}` : `${stacked ? 'stacked' : 'architecture'}:${architectureKey(policy.config)}`;
    if (!this.sessions.has(key)) {
      const session = await openModelSession(policy.config, policy.weights, 'last', {
        threads: this.options.threads,
        device: this.options.device,
        weights: member.binding,
        opSet: this.options.opSet,
        cache: this.options.cache,
        label: stack ? `decode(${stack.policies.length} adapters)` : `decode(${policy.name})`,
        adapterStack: stacked,
        // One member (solo, or a stack of adapters co-decoded in one graph) runs alone and spins; the members of a
        // tandem alternate token by token, and one's threads spinning on after its run would take the other's cores.
        spinning: this.members.length === 1 ? 'idle' : 'within-run',
      });
      this.sessions.set(key, session);
    }
    member.policy = policy;
    member.sessionKey = key;
    member.weightFeeds = baked ? {} : weightFeeds(stack ? new Map([...baseOf(policy.config, policy.weights), ...stack.tensors]) : policy.weights);
    for (const [other, session] of this.sessions) {
      if (!this.members.some((m) => m.sessionKey === other)) {
        this.sessions.delete(other);
        await session.release();
      }
    }
  }

  get policies(): readonly Policy[] {
    return this.stack ? this.stack.policies : this.members.map((m) => m.policy);
  }

  /** Each member's weight binding, in policy order (one for a stacked decoder). */
  get bindings(): readonly WeightBinding[] {
    return this.members.map((m) => m.binding);
  }

  /** Whether this decoder runs stacked adapters (DecoderOptions.stacked). */
  get stacked(): boolean {
    return this.stack !== null;
  }

  /**
   * A stacked decoder's adapters replaced by `policies` (more, fewer or reordered; same base and shape): the stacks are
   * copied afresh, the session and caches kept (the graph takes any number of adapters).
   */
  async setStackedPolicies(policies: readonly Policy[]): Promise<void> {
    if (!this.stack) return fail('INPUT_INVALID', 'setStackedPolicies: this decoder does not stack adapters');
    if (this.stack.lanesPerRow > 1 && policies.length !== this.stack.policies.length) {
      fail('INPUT_INVALID', `setStackedPolicies: a co-decoded stack keeps its ${this.stack.policies.length} policies (got ${policies.length})`);
    }
    const why = unstackableReason([this.members[0].policy, ...policies]);
    if (why) fail('INPUT_INVALID', `a decoder of stacked adapters: ${why}`, { policies: policies.map((p) => p.name) });
    this.restack(policies);
    const member = this.members[0];
    member.weightFeeds = weightFeeds(new Map([...baseOf(member.policy.config, member.policy.weights), ...this.stack.tensors]));
  }

  private restack(policies: readonly Policy[]): void {
    const stack = present(this.stack, 'the adapter stack of a stacked decoder');
    const config = this.members[0].policy.config;
    const adapters = policies.filter((p) => p.config.lora);
    stack.policies = [...policies];
    stack.slices = Int32Array.from(policies, (p) => adapters.indexOf(p));
    stack.tensors = stackAdapters(config, adapters.map((p) => p.weights));
    stack.index = policies.map(() => new Int32Array(this.batch));
    // A co-decoded stack's lanes keep their policy: lane m·batch + row reads through policy m's adapter.
    if (stack.lanesPerRow > 1) for (let lane = 0; lane < stack.adapterIndex.length; lane++) stack.adapterIndex[lane] = BigInt(stack.slices[Math.floor(lane / this.batch)]);
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
    for (let lane = 0; lane < this.invTemperature.length; lane++) {
      const t = typeof temperatures === 'number' ? temperatures : temperatures[lane % this.batch];
      this.invTemperature[lane] = t > 0 ? 1 / t : 1;
    }
  }

  /**
   * Replaces a policy's weights (after an optimizer step); caches and positions are kept. With weights as inputs
   * and an unchanged architecture this compiles nothing: the next run reads the new arrays.
   */
  async updatePolicy(index: number, policy: Policy): Promise<void> {
    const policies = this.policies.map((p, i) => (i === index ? policy : p));
    assertSharedTokenizer(policies);
    if (this.stack) {
      const why = unstackableReason([this.members[0].policy, policy]);
      if (why) fail('INPUT_INVALID', `a decoder of stacked adapters: ${why}`, { policy: policy.name });
      const slice = this.stack.slices[index];
      if (slice >= 0 && policy.config.lora) writeStackSlice(policy.config, this.stack.tensors, slice, policy.weights);
      this.stack.policies[index] = policy;
      // The base in an adapter's place or an adapter in the base's: the stacks are laid out afresh.
      if ((slice >= 0) !== (policy.config.lora !== undefined)) await this.setStackedPolicies(this.stack.policies);
      return;
    }
    const member = this.members[index];
    if (member.policy.config.numLayers !== policy.config.numLayers || member.policy.config.numKvHeads !== policy.config.numKvHeads || member.policy.config.headDim !== policy.config.headDim) {
      fail('INPUT_INVALID', `updatePolicy: policy "${policy.name}" has a different KV cache shape than "${member.policy.name}"`);
    }
    this.generation += 1;
    // Members with their weights baked into sessions and sharing the replaced weights object (updated in place by a
    // learner) get a fresh session too, or they would decode with the old values. Each is updated from now on.
    const rebound = this.members.filter((m) => m === member || (m.binding === 'initializers' && m.policy.weights === member.policy.weights));
    for (const m of rebound) {
      m.updated = true;
      await this.bind(m, m === member ? policy : m.policy);
    }
    member.rope = new RotaryTables(policy.config);
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

  /**
   * Starts every row afresh from its prompt. Long prompts are read in pieces of about PREFILL_PIECE tokens: each
   * row's prompt is cut into the same number of near-equal pieces (never more than the shortest prompt has tokens,
   * so no row's piece is empty) and appended piece by piece, so a run attends from at most a piece's positions
   * instead of the whole prompt's.
   */
  async prefill(prompts: readonly (readonly number[])[], route: Route = null): Promise<Distributions> {
    this.reset();
    for (const [row, prompt] of prompts.entries()) if (prompt.length === 0) fail('INPUT_INVALID', `prompt ${row} is empty`, { row });
    const lengths = prompts.map((prompt) => prompt.length);
    const pieces = Math.min(Math.ceil(Math.max(...lengths) / PREFILL_PIECE), Math.min(...lengths));
    if (pieces <= 1) return this.append(prompts, route);
    const piece = (k: number) => prompts.map((prompt) => prompt.slice(Math.floor((k * prompt.length) / pieces), Math.floor(((k + 1) * prompt.length) / pieces)));
    let distributions = await this.append(piece(0), route);
    for (let k = 1; k < pieces; k++) distributions = await this.append(piece(k), route);
    return distributions;
  }

  /** Appends each row's chunk (ragged, possibly empty) to the shared sequence. */
  async append(chunks: readonly (readonly number[])[], route: Route = null): Promise<Distributions> {
    if (chunks.length !== this.batch) fail('INPUT_INVALID', `append needs ${this.batch} rows, got ${chunks.length}`);
    this.idle.fill(0);
    for (const [row, chunk] of chunks.entries()) {
      this.extend(row, chunk.length);
      for (const member of this.members) for (let lane = row; lane < member.pending.length; lane += this.batch) for (const token of chunk) member.pending[lane].push(token);
    }
    return this.flush(route);
  }

  /** Appends one token to every row, but a row given a negative token (one that has finished) takes none. */
  async step(tokens: ArrayLike<number>, route: Route = null): Promise<Distributions> {
    for (let row = 0; row < this.batch; row++) {
      this.idle[row] = tokens[row] < 0 ? 1 : 0;
      if (this.idle[row]) continue;
      this.extend(row, 1);
      for (const member of this.members) for (let lane = row; lane < member.pending.length; lane += this.batch) member.pending[lane].push(tokens[row]);
    }
    return this.flush(route);
  }

  private extend(row: number, count: number): void {
    const end = this.lengths[row] + count;
    if (end > this.options.maxLen) fail('SEQUENCE_TOO_LONG', `row ${row} would reach ${end} positions, past the cache capacity of ${this.options.maxLen}`, { row, maxLen: this.options.maxLen });
    this.lengths[row] = end;
  }

  /**
   * Lets each policy read its pending tokens: when lazy, only in the rows where it owes a distribution; in lockstep,
   * every row, unless it owes none at all, when it defers the whole step (every row's queue then grows alike, so its
   * catch-up later pads nothing, and a member whose rows have all finished or whose partner writes everything never
   * runs).
   */
  private async flush(route: Route): Promise<Distributions> {
    if (this.stack) return this.flushStacked(route, this.stack);
    const { batch } = this.options;
    const probs: Float32Array[] = [];
    for (const [m, member] of this.members.entries()) {
      const chunks: number[][] = [];
      const rows: bigint[] = [];
      const wholeStep = !this.options.lazy && (route === null || route.includes(m));
      for (let row = 0; row < batch; row++) {
        const owed = route === null ? !this.idle[row] : route[row] === m;
        const queue = member.pending[row];
        if (owed && queue.length === 0) fail('INPUT_INVALID', `policy ${m} was asked again about row ${row} with no new token`, { row });
        chunks.push(owed || wholeStep ? queue.splice(0) : []);
        member.rowIndex[row] = owed ? rows.length : -1;
        if (owed) rows.push(BigInt(row));
      }
      // onnxruntime's GEMM takes a kernel of its own for a single row (MLAS's M=1 path) whose sums differ in the last
      // bits; a lone routed row is projected twice so that a row's distribution never depends on how many rows
      // share its author, and a policy co-decoding with itself samples exactly what it samples alone.
      if (rows.length === 1 && batch > 1) rows.push(rows[0]);
      const S = Math.max(0, ...chunks.map((c) => c.length));
      probs.push(S > 0 ? await this.run(member, chunks, S, BigInt64Array.from(rows)) : EMPTY);
    }
    return new Distributions(probs, this.members.map((member) => member.rowIndex), this.vocabSize);
  }

  /** A stacked decoder's step: one run over every lane with work, each through its own adapter. */
  private async flushStacked(route: Route, stack: Stack): Promise<Distributions> {
    if (route === null && stack.lanesPerRow === 1) return fail('INPUT_INVALID', 'a decoder of stacked adapters writes each row with one adapter: it has no partner distributions to give (coDecoded has)');
    const { batch, lazy } = this.options;
    const member = this.members[0];
    const chunks: number[][] = [];
    const rows: bigint[] = [];
    for (const index of stack.index) index.fill(-1);
    if (stack.lanesPerRow === 1) {
      for (let row = 0; row < batch; row++) {
        const author = present(route, 'the route of a one-lane stacked step')[row];
        const owed = author >= 0;
        const queue = member.pending[row];
        if (owed && author >= stack.policies.length) fail('INPUT_INVALID', `row ${row} is routed to adapter ${author} of ${stack.policies.length}`, { row });
        if (owed && queue.length === 0) fail('INPUT_INVALID', `adapter ${author} was asked again about row ${row} with no new token`, { row });
        chunks.push(owed || !lazy ? queue.splice(0) : []);
        if (owed) {
          stack.adapterIndex[row] = BigInt(stack.slices[author]);
          stack.index[author][row] = rows.length;
          rows.push(BigInt(row));
        }
      }
    } else {
      // Lane m·batch + row is what member m's row would be in a decoder of one member per policy (flush), read alike.
      for (let m = 0; m < stack.policies.length; m++) {
        const wholeStep = !lazy && (route === null || route.includes(m));
        for (let row = 0; row < batch; row++) {
          const owed = route === null ? !this.idle[row] : route[row] === m;
          const queue = member.pending[m * batch + row];
          if (owed && queue.length === 0) fail('INPUT_INVALID', `policy ${m} was asked again about row ${row} with no new token`, { row });
          chunks.push(owed || wholeStep ? queue.splice(0) : []);
          if (owed) {
            stack.index[m][row] = rows.length;
            rows.push(BigInt(m * batch + row));
          }
        }
      }
    }
    // As in flush: a lone row is projected twice, so its distribution does not depend on how many rows have work.
    if (rows.length === 1 && chunks.length > 1) rows.push(rows[0]);
    const S = Math.max(0, ...chunks.map((c) => c.length));
    const probs = S > 0 ? await this.run(member, chunks, S, BigInt64Array.from(rows)) : EMPTY;
    return new Distributions(stack.policies.map(() => probs), stack.index, this.vocabSize);
  }

  /** One run of a member's graph over its chunks; its caches take the new keys and values. */
  private async run(member: Member, chunks: number[][], S: number, rows: BigInt64Array): Promise<Float32Array> {
    const counts = Int32Array.from(chunks, (c) => c.length);
    const caches = member.caches.feeds(member.synced, counts);
    const feeds: Feeds = { ...member.weightFeeds, ...this.memberFeeds(member, chunks, S), ...caches.host, rows: { dtype: 'int64', dims: [rows.length], data: rows } as HostTensor };
    if (this.stack) feeds.adapter_index = { dtype: 'int64', dims: [chunks.length], data: this.stack.adapterIndex };
    this.runs += 1;
    const result = await entryOf(this.sessions, member.sessionKey, 'the session').runWith(feeds, caches.resident, ['probs', ...member.caches.outputs]);
    member.caches.absorb(result, S, member.synced, counts);
    for (let lane = 0; lane < chunks.length; lane++) member.synced[lane] += counts[lane];
    return result.host.probs.data as Float32Array;
  }

  /** A member's feeds for one run over its lanes (its rows, or a co-decoded stack's lane per row and policy): one chunk each. */
  private memberFeeds(member: Member, chunks: number[][], S: number): Feeds {
    const batch = chunks.length;
    const ids = new BigInt64Array(batch * S);
    const positions = new BigInt64Array(batch * S);
    const lastIndex = new BigInt64Array(batch);
    for (const [row, chunk] of chunks.entries()) {
      const start = member.synced[row];
      for (let s = 0; s < S; s++) {
        ids[row * S + s] = BigInt(s < chunk.length ? chunk[s] : 0);
        positions[row * S + s] = BigInt(start + s);
      }
      lastIndex[row] = BigInt(Math.max(chunk.length - 1, 0));
    }
    const chunkMask = new Float32Array(S * S);
    for (let i = 0; i < S; i++) chunkMask.fill(-Infinity, i * S + i + 1, (i + 1) * S);
    const rope = member.rope.feeds(Math.max(...member.synced) + S);
    const feeds: Feeds = {
      input_ids: { dtype: 'int64', dims: [batch, S], data: ids },
      position_ids: { dtype: 'int64', dims: [batch, S], data: positions },
      chunk_mask: { dtype: 'float32', dims: [S, S], data: chunkMask },
      inv_temperature: { dtype: 'float32', dims: [batch, 1], data: this.invTemperature },
      last_index: { dtype: 'int64', dims: [batch], data: lastIndex },
      rope_cos: rope.cos,
      rope_sin: rope.sin,
    };
    return feeds;
  }

  async release(): Promise<void> {
    for (const member of this.members) member.caches.release();
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    for (const session of sessions) await session.release();
  }
}

const ids = new WeakMap<object, number>();
let nextId = 0;
/** A stable id per weights object, for keying sessions that hold those weights. */
function weightsId(policy: Policy): number {
  let id = ids.get(policy.weights);
  if (id === undefined) ids.set(policy.weights, (id = nextId++));
  return id;
}
