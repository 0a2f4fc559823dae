import { z } from 'zod';
import type { Rng } from '../../core/rng.ts';

export const SamplingSchema = z.object({
  /** 0 means greedy. */
  temperature: z.number().min(0).default(1),
  /** 0 disables top-k. */
  topK: z.number().int().min(0).default(0),
  topP: z.number().gt(0).max(1).default(1),
});

export type SamplingParams = z.infer<typeof SamplingSchema>;

export interface Sample {
  token: number;
  /** log p(token) under the temperature-scaled, untruncated distribution: what a learner recomputes. */
  logprob: number;
}

/** log of the smallest positive float32: the floor reported for a token whose probability underflowed. */
export const LOGPROB_FLOOR = Math.log(1.401298464324817e-45);

export const logOf = (p: number): number => (p > 0 ? Math.log(p) : LOGPROB_FLOOR);

/**
 * Samples one token per row from probabilities laid out [rows × vocab] (already temperature-scaled by the graph).
 * Top-k and top-p narrow the candidates; the reported log-probability stays that of the full distribution.
 */
export class Sampler {
  private readonly sorted: Float32Array;

  constructor(readonly vocabSize: number) {
    this.sorted = new Float32Array(vocabSize);
  }

  sample(probs: Float32Array, row: number, params: SamplingParams, rng: Rng): Sample {
    const V = this.vocabSize;
    const base = row * V;
    if (params.temperature === 0) {
      let best = 0;
      for (let i = 1; i < V; i++) if (probs[base + i] > probs[base + best]) best = i;
      return { token: best, logprob: logOf(probs[base + best]) };
    }
    const threshold = this.cutoff(probs, base, params);
    let mass = 0;
    if (threshold === 0) mass = 1;
    else for (let i = 0; i < V; i++) if (probs[base + i] >= threshold) mass += probs[base + i];
    let u = rng.next() * mass;
    let token = -1;
    let last = 0;
    for (let i = 0; i < V; i++) {
      const p = probs[base + i];
      if (p < threshold || p === 0) continue;
      last = i;
      u -= p;
      if (u < 0) {
        token = i;
        break;
      }
    }
    if (token < 0) token = last;
    return { token, logprob: logOf(probs[base + token]) };
  }

  /** The smallest probability still kept by top-k and top-p (0 keeps everything). */
  private cutoff(probs: Float32Array, base: number, params: SamplingParams): number {
    const V = this.vocabSize;
    const topK = params.topK > 0 && params.topK < V ? params.topK : 0;
    if (topK === 0 && params.topP >= 1) return 0;
    const sorted = this.sorted;
    sorted.set(probs.subarray(base, base + V));
    sorted.sort();
    let threshold = topK > 0 ? sorted[V - topK] : 0;
    if (params.topP < 1) {
      let acc = 0;
      for (let i = V - 1; i >= 0; i--) {
        acc += sorted[i];
        if (acc >= params.topP) {
          threshold = Math.max(threshold, sorted[i]);
          break;
        }
      }
    }
    return threshold;
  }
}
