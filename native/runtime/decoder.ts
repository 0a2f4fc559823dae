import { fail } from '../../core/errors.ts';
import { Session, type Device, type HostTensor } from '../ort.ts';
import { buildDecodeGraph, cacheName, logitsName } from '../model/decode-graph.ts';
import { assertSharedTokenizer, type Policy } from './policy.ts';

export interface DecoderOptions {
  /** Rows stepped together; the KV caches are sized for it once. */
  batch: number;
  /** Positions per row (prompt + generated) the caches hold. */
  maxLen: number;
  threads?: number;
  device?: Device;
}

interface Cache {
  name: string;
  present: string;
  tensor: HostTensor;
}

/**
 * Steps one or more policies in lockstep over the same rows. Each call appends tokens to every row at its own
 * position; all policies read the same tokens, so their caches always hold the same shared sequence.
 * Caches and output buffers are allocated once and reused across rollouts.
 */
export class Decoder {
  readonly lengths: Int32Array;
  private readonly caches: Cache[] = [];
  private readonly logits: HostTensor[];
  private readonly stepIds: BigInt64Array;
  private readonly seqlens: Int32Array;
  private readonly zeroIndex: BigInt64Array;

  private constructor(
    private session: Session,
    readonly policies: readonly Policy[],
    readonly options: Required<Omit<DecoderOptions, 'device'>> & { device: Device },
  ) {
    const { batch, maxLen } = options;
    this.lengths = new Int32Array(batch);
    this.stepIds = new BigInt64Array(batch);
    this.seqlens = new Int32Array(batch);
    this.zeroIndex = new BigInt64Array(batch);
    for (const [m, policy] of policies.entries()) {
      const c = policy.config;
      for (let layer = 0; layer < c.numLayers; layer++) {
        for (const kind of ['key', 'value'] as const) {
          this.caches.push({
            name: cacheName(prefixOf(m), layer, kind, 'past'),
            present: cacheName(prefixOf(m), layer, kind, 'present'),
            tensor: { dtype: 'float32', dims: [batch, c.numKvHeads, maxLen, c.headDim], data: new Float32Array(batch * c.numKvHeads * maxLen * c.headDim) },
          });
        }
      }
    }
    const vocab = policies[0].config.vocabSize;
    this.logits = policies.map(() => ({ dtype: 'float32', dims: [batch, vocab], data: new Float32Array(batch * vocab) }));
  }

  static async create(policies: Policy[], options: DecoderOptions): Promise<Decoder> {
    if (policies.length === 0) fail('INPUT_INVALID', 'a decoder needs at least one policy');
    assertSharedTokenizer(policies);
    const resolved = { threads: options.threads ?? 0, device: options.device ?? 'cpu', batch: options.batch, maxLen: options.maxLen };
    const session = await Decoder.compile(policies, resolved);
    return new Decoder(session, policies, resolved);
  }

  private static async compile(policies: readonly Policy[], options: { maxLen: number; threads: number; device: Device }): Promise<Session> {
    const graph = buildDecodeGraph(
      policies.map((p, m) => ({ config: p.config, weights: p.weights, prefix: prefixOf(m) })),
      { maxLen: options.maxLen, logits: 'last' },
    );
    return Session.create(graph.toBytes(), { threads: options.threads, device: options.device, label: `decode(${policies.map((p) => p.name).join('+')})` });
  }

  get batch(): number {
    return this.options.batch;
  }

  get vocabSize(): number {
    return this.policies[0].config.vocabSize;
  }

  /** Replaces a policy's weights (after an optimizer step); caches are kept. */
  async updatePolicy(index: number, policy: Policy): Promise<void> {
    const policies = this.policies.map((p, i) => (i === index ? policy : p));
    assertSharedTokenizer(policies);
    const next = await Decoder.compile(policies, this.options);
    await this.session.release();
    this.session = next;
    (this as { policies: readonly Policy[] }).policies = policies;
  }

  /** Starts every row afresh from its prompt; returns each policy's next-token logits, [batch × vocab] each. */
  async prefill(prompts: readonly (readonly number[])[]): Promise<Float32Array[]> {
    const { batch, maxLen } = this.options;
    if (prompts.length !== batch) fail('INPUT_INVALID', `prefill needs ${batch} prompts, got ${prompts.length}`);
    const width = Math.max(...prompts.map((p) => p.length));
    if (width > maxLen) fail('SEQUENCE_TOO_LONG', `a prompt of ${width} tokens does not fit the ${maxLen}-position cache`, { maxLen });
    const ids = new BigInt64Array(batch * width);
    const lastIndex = new BigInt64Array(batch);
    for (const [row, prompt] of prompts.entries()) {
      if (prompt.length === 0) fail('INPUT_INVALID', `prompt ${row} is empty`);
      for (let t = 0; t < prompt.length; t++) ids[row * width + t] = BigInt(prompt[t]);
      this.seqlens[row] = prompt.length - 1;
      lastIndex[row] = BigInt(prompt.length - 1);
      this.lengths[row] = prompt.length;
    }
    return this.run({ dtype: 'int64', dims: [batch, width], data: ids }, width, lastIndex);
  }

  /** Appends one token to every row; returns each policy's logits for the position after it. */
  async step(tokens: ArrayLike<number>): Promise<Float32Array[]> {
    const { batch, maxLen } = this.options;
    let total = 0;
    for (let row = 0; row < batch; row++) {
      if (this.lengths[row] >= maxLen) fail('SEQUENCE_TOO_LONG', `row ${row} reached the cache capacity of ${maxLen} positions`, { row, maxLen });
      this.stepIds[row] = BigInt(tokens[row]);
      this.seqlens[row] = this.lengths[row];
      this.lengths[row] += 1;
      if (this.lengths[row] > total) total = this.lengths[row];
    }
    return this.run({ dtype: 'int64', dims: [batch, 1], data: this.stepIds }, total, this.zeroIndex);
  }

  private async run(ids: HostTensor, total: number, lastIndex: BigInt64Array): Promise<Float32Array[]> {
    const { batch } = this.options;
    const feeds: Record<string, HostTensor> = {
      input_ids: ids,
      seqlens_k: { dtype: 'int32', dims: [batch], data: this.seqlens },
      total_len: { dtype: 'int32', dims: [], data: Int32Array.of(total) },
      last_index: { dtype: 'int64', dims: [batch], data: lastIndex },
    };
    const preallocated: Record<string, HostTensor> = {};
    const outputs: string[] = [];
    for (const cache of this.caches) {
      feeds[cache.name] = cache.tensor;
      preallocated[cache.present] = cache.tensor;
      outputs.push(cache.present);
    }
    for (const [m, logits] of this.logits.entries()) {
      preallocated[logitsName(prefixOf(m))] = logits;
      outputs.push(logitsName(prefixOf(m)));
    }
    await this.session.run(feeds, outputs, preallocated);
    return this.logits.map((t) => t.data as Float32Array);
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

const prefixOf = (m: number): string => `m${m}.`;
