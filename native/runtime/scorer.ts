import { fail } from '../../core/errors.ts';
import type { Feeds, Session } from '../ort.ts';
import { cacheName } from '../model/decode-graph.ts';
import { ensureFits, FLOAT_BYTES, rowsWithinBudget } from '../model/memory.ts';
import { RotaryTables } from '../model/rotary-tables.ts';
import { openModelSession, resolveBinding, weightFeeds, type ModelSessionOptions } from './model-session.ts';
import type { Policy } from './policy.ts';
import { stackAdapters } from '../model/lora.ts';
import type { Weights } from '../model/weights.ts';

export interface ScoreOptions extends ModelSessionOptions {
  /** Also return the full next-token log-distribution at every position, [T × V] per sequence. */
  full?: boolean;
  /**
   * Several adapters of the policy's LoRA shape over its base, scored in one batch: `score(…, { adapterOf })` names
   * each sequence's adapter. The policy's weights need only the base's tensors then. Weights as inputs only.
   */
  adapters?: readonly Weights[];
  /**
   * Sequences per onnxruntime run (all of a call's at once when absent): a call is scored in runs of this many,
   * shortest first, each run padded only to its own longest. One run over 64 verifier-length sequences (600-1,100
   * tokens) held 6.1 GB in onnxruntime's arena, runs of 4 under 1 GB at no cost in time (ours, on the last-letter
   * base). Each sequence is scored alone in its run's causal forward, so the split does not change what it gets.
   * 'auto': per call, as many as keep a run within the run budget at the call's longest sequence (rowsWithinBudget).
   */
  rowsPerRun?: number | 'auto';
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
    /** How many adapters the batch may mix (0: the policy's own weights, one model for every row). */
    private readonly adapterCount = 0,
    private readonly rowsPerRun: number | 'auto' = Infinity,
  ) {
    this.rope = new RotaryTables(policy.config);
    this.weights = baked ? {} : weightFeeds(policy.weights);
  }

  static async create(policy: Policy, options: ScoreOptions = {}): Promise<Scorer> {
    if (options.rowsPerRun !== undefined && options.rowsPerRun !== 'auto' && !(Number.isInteger(options.rowsPerRun) && options.rowsPerRun >= 1)) {
      fail('INPUT_INVALID', `scorer of "${policy.name}": rowsPerRun must be a whole number of at least 1 (got ${options.rowsPerRun})`, { rowsPerRun: options.rowsPerRun });
    }
    if (options.adapters) {
      if (!policy.config.lora) fail('INPUT_INVALID', `scorer of "${policy.name}": adapters were given but its config has no LoRA shape`);
      if (resolveBinding(options) !== 'inputs') fail('INPUT_INVALID', `scorer of "${policy.name}": several adapters in one batch need weights bound as inputs`);
      const stacked: Policy = { ...policy, weights: new Map([...policy.weights, ...stackAdapters(policy.config, options.adapters)]) };
      const session = await openModelSession(policy.config, stacked.weights, 'all', { ...options, adapterStack: true, spinning: 'idle', label: `score(${policy.name}, ${options.adapters.length} adapters)` });
      return new Scorer(session, stacked, false, options.adapters.length, options.rowsPerRun);
    }
    const session = await openModelSession(policy.config, policy.weights, 'all', { ...options, spinning: 'idle', label: `score(${policy.name})` });
    return new Scorer(session, policy, resolveBinding(options) === 'initializers', 0, options.rowsPerRun);
  }

  async score(sequences: readonly (readonly number[])[], options: { full?: boolean; adapterOf?: readonly number[] } = {}): Promise<Scored[]> {
    const perRun = this.rowsPerRun === 'auto' ? rowsWithinBudget(this.policy.config, sequences.length, Math.max(1, ...sequences.map((s) => s.length))) : this.rowsPerRun;
    if (sequences.length <= perRun) return this.scoreRun(sequences, options);
    const order = sequences.map((_, i) => i).sort((a, b) => sequences[a].length - sequences[b].length || a - b);
    const out: Scored[] = new Array(sequences.length);
    for (let i = 0; i < order.length; i += perRun) {
      const run = order.slice(i, i + perRun);
      const adapters = options.adapterOf;
      const adapterOf = adapters && run.map((r) => adapters[r]);
      const scored = await this.scoreRun(run.map((r) => sequences[r]), { ...options, ...(adapterOf ? { adapterOf } : {}) });
      run.forEach((r, k) => (out[r] = scored[k]));
    }
    return out;
  }

  private async scoreRun(sequences: readonly (readonly number[])[], options: { full?: boolean; adapterOf?: readonly number[] }): Promise<Scored[]> {
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
    if (this.adapterCount > 0) {
      const index = options.adapterOf;
      if (!index || index.length !== B || !index.every((i) => Number.isInteger(i) && i >= 0 && i < this.adapterCount)) {
        fail('INPUT_INVALID', `adapterOf must give each of the ${B} sequences an adapter in [0, ${this.adapterCount})`, { adapterOf: index });
      }
      feeds.adapter_index = { dtype: 'int64', dims: [B], data: BigInt64Array.from(index.map(BigInt)) };
    }
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
