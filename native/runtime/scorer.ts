import { fail } from '../../core/errors.ts';
import { Session, type Device, type HostTensor } from '../ort.ts';
import { buildDecodeGraph, cacheName, logprobsName } from '../model/decode-graph.ts';
import type { Policy } from './policy.ts';

export interface ScoreOptions {
  threads?: number;
  device?: Device;
  /** Also return the full next-token log-distribution at every position, [T × V] per sequence. */
  full?: boolean;
}

export interface Scored {
  /** logprobs[i] = log p(token_i | tokens_<i); the first token has no context, so null. */
  logprobs: (number | null)[];
  /** Row t holds log p(· | tokens_≤t). */
  full?: Float32Array;
}

/**
 * Teacher-forced scoring: one forward pass over whole sequences (right-padded into one batch), through the same
 * graph builder the decoder uses, so scores and sampled log-probabilities agree.
 */
export class Scorer {
  private constructor(
    private readonly session: Session,
    readonly policy: Policy,
  ) {}

  static async create(policy: Policy, options: ScoreOptions = {}): Promise<Scorer> {
    const graph = buildDecodeGraph([{ config: policy.config, weights: policy.weights, prefix: '' }], {
      maxLen: policy.config.maxPositionEmbeddings,
      output: 'all',
    });
    return new Scorer(await Session.create(graph.toBytes(), { threads: options.threads, device: options.device, label: `score(${policy.name})` }), policy);
  }

  async score(sequences: readonly (readonly number[])[], options: { full?: boolean } = {}): Promise<Scored[]> {
    const c = this.policy.config;
    const V = c.vocabSize;
    const B = sequences.length;
    if (B === 0) return [];
    const S = Math.max(...sequences.map((s) => s.length));
    if (S === 0) fail('INPUT_INVALID', 'nothing to score: every sequence is empty');
    if (S > c.maxPositionEmbeddings) fail('SEQUENCE_TOO_LONG', `a sequence of ${S} tokens exceeds max_position_embeddings ${c.maxPositionEmbeddings}`);
    const ids = new BigInt64Array(B * S);
    const positions = new BigInt64Array(B * S);
    for (const [row, seq] of sequences.entries()) {
      for (let t = 0; t < S; t++) {
        const token = t < seq.length ? seq[t] : 0;
        if (!Number.isInteger(token) || token < 0 || token >= V) fail('INPUT_INVALID', `token ${token} at position ${t} of sequence ${row} is outside the vocabulary [0, ${V})`, { row, position: t });
        ids[row * S + t] = BigInt(token);
        positions[row * S + t] = BigInt(t);
      }
    }
    const chunkMask = new Float32Array(S * S);
    for (let i = 0; i < S; i++) for (let j = i + 1; j < S; j++) chunkMask[i * S + j] = -Infinity;
    const feeds: Record<string, HostTensor> = {
      input_ids: { dtype: 'int64', dims: [B, S], data: ids },
      position_ids: { dtype: 'int64', dims: [B, S], data: positions },
      past_mask: { dtype: 'float32', dims: [B, 1, 1, 1], data: new Float32Array(B).fill(-Infinity) },
      chunk_mask: { dtype: 'float32', dims: [S, S], data: chunkMask },
      inv_temperature: { dtype: 'float32', dims: [B, 1], data: new Float32Array(B).fill(1) },
    };
    for (let layer = 0; layer < c.numLayers; layer++) {
      for (const kind of ['key', 'value'] as const) {
        feeds[cacheName('', layer, kind)] = { dtype: 'float32', dims: [B, c.numKvHeads, 1, c.headDim], data: new Float32Array(B * c.numKvHeads * c.headDim) };
      }
    }
    const result = await this.session.run(feeds, [logprobsName('')]);
    const all = result[logprobsName('')].data as Float32Array;
    return sequences.map((seq, row) => {
      const base = row * S * V;
      const logprobs: (number | null)[] = seq.map((token, t) => (t === 0 ? null : all[base + (t - 1) * V + token]));
      return options.full ? { logprobs, full: all.slice(base, base + seq.length * V) } : { logprobs };
    });
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
