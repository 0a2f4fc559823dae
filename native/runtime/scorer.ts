import { fail } from '../../core/errors.ts';
import type { Feeds, Session } from '../ort.ts';
import { cacheName } from '../model/decode-graph.ts';
import { ensureFits, FLOAT_BYTES } from '../model/memory.ts';
import { RotaryTables } from '../model/rotary-tables.ts';
import { openModelSession, resolveBinding, weightFeeds, type ModelSessionOptions } from './model-session.ts';
import type { Policy } from './policy.ts';

export interface ScoreOptions extends ModelSessionOptions {
  /** Also return the full next-token log-distribution at every position, [T × V] per sequence. */
  full?: boolean;
}

export interface Scored {
  /** logprobs[i] = log p(token_i | tokens_<i); the first token has no context, so null. */
  logprobs: (number | null)[];
  /** Row t holds log p(· | tokens_≤t). */
  full?: Float32Array;
}

/** Copies of [B, S, V] floats a scoring run holds at once: logits, their log-softmax, and the fetched copy. */
const VOCAB_COPIES = 3;

/**
 * Teacher-forced scoring: one forward pass over whole sequences (right-padded into one batch), through the same
 * graph builder the decoder uses, so scores and sampled log-probabilities agree. Only the scored tokens'
 * log-probabilities leave onnxruntime unless the full distributions are asked for.
 */
export class Scorer {
  private readonly rope: RotaryTables;
  private readonly weights: Feeds;

  private constructor(
    private readonly session: Session,
    readonly policy: Policy,
    baked: boolean,
  ) {
    this.rope = new RotaryTables(policy.config);
    this.weights = baked ? {} : weightFeeds(policy.weights);
  }

  static async create(policy: Policy, options: ScoreOptions = {}): Promise<Scorer> {
    const session = await openModelSession(policy.config, policy.weights, 'all', { ...options, label: `score(${policy.name})` });
    return new Scorer(session, policy, resolveBinding(options) === 'initializers');
  }

  async score(sequences: readonly (readonly number[])[], options: { full?: boolean } = {}): Promise<Scored[]> {
    const c = this.policy.config;
    const V = c.vocabSize;
    const B = sequences.length;
    if (B === 0) return [];
    const S = Math.max(...sequences.map((s) => s.length));
    if (S === 0) fail('INPUT_INVALID', 'nothing to score: every sequence is empty');
    if (S > c.maxPositionEmbeddings) fail('SEQUENCE_TOO_LONG', `a sequence of ${S} tokens exceeds max_position_embeddings ${c.maxPositionEmbeddings}`);
    ensureFits(`scoring ${B} × ${S} tokens over a vocabulary of ${V}`, VOCAB_COPIES * B * S * V * FLOAT_BYTES, { rows: B, tokens: S });
    const ids = new BigInt64Array(B * S);
    const targets = new BigInt64Array(B * S);
    const positions = new BigInt64Array(B * S);
    for (const [row, seq] of sequences.entries()) {
      for (let t = 0; t < S; t++) {
        const token = t < seq.length ? seq[t] : 0;
        if (!Number.isInteger(token) || token < 0 || token >= V) fail('INPUT_INVALID', `token ${token} at position ${t} of sequence ${row} is outside the vocabulary [0, ${V})`, { row, position: t });
        ids[row * S + t] = BigInt(token);
        if (t > 0) targets[row * S + t - 1] = BigInt(token);
        positions[row * S + t] = BigInt(t);
      }
    }
    const chunkMask = new Float32Array(S * S);
    for (let i = 0; i < S; i++) chunkMask.fill(-Infinity, i * S + i + 1, (i + 1) * S);
    const rope = this.rope.feeds(S);
    const feeds: Feeds = {
      ...this.weights,
      input_ids: { dtype: 'int64', dims: [B, S], data: ids },
      targets: { dtype: 'int64', dims: [B, S], data: targets },
      position_ids: { dtype: 'int64', dims: [B, S], data: positions },
      past_mask: { dtype: 'float32', dims: [B, 1, 1, 1], data: new Float32Array(B).fill(-Infinity) },
      chunk_mask: { dtype: 'float32', dims: [S, S], data: chunkMask },
      inv_temperature: { dtype: 'float32', dims: [B, 1], data: new Float32Array(B).fill(1) },
      rope_cos: rope.cos,
      rope_sin: rope.sin,
    };
    const emptyCache = new Float32Array(B * c.numKvHeads * c.headDim);
    for (let layer = 0; layer < c.numLayers; layer++) {
      for (const kind of ['key', 'value'] as const) feeds[cacheName(layer, kind)] = { dtype: 'float32', dims: [B, c.numKvHeads, 1, c.headDim], data: emptyCache };
    }
    const full = options.full === true;
    const result = await this.session.run(feeds, full ? ['target_logprobs', 'logprobs'] : ['target_logprobs']);
    const picked = result.target_logprobs.data as Float32Array;
    const all = full ? (result.logprobs.data as Float32Array) : null;
    return sequences.map((seq, row) => {
      const logprobs: (number | null)[] = seq.map((_, t) => (t === 0 ? null : picked[row * S + t - 1]));
      return all ? { logprobs, full: all.slice(row * S * V, (row * S + seq.length) * V) } : { logprobs };
    });
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
