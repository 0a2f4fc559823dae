import type { ModelConfig } from '../../../native/model/config.ts';
import type { Weights } from '../../../native/model/weights.ts';
import { Session, type Feeds, type HostTensor } from '../../../native/ort.ts';
import type { BuiltGraph } from '../../../native/train/train-graph.ts';
import type { FloatDType } from '../../../native/train/tape.ts';
import { Rng } from '../../../core/rng.ts';

/** A right-padded token batch for graph-level tests, flat row-major [rows, cols]. */
export interface TestBatch {
  rows: number;
  cols: number;
  inputIds: number[];
  targets: number[];
  mask: number[];
}

/** Random ids; row i holds lengths[i] real tokens, then padding id 0 with mask 0. */
export function randomBatch(config: ModelConfig, lengths: number[], cols: number, seed: number): TestBatch {
  const rng = new Rng(seed);
  const inputIds: number[] = [];
  const targets: number[] = [];
  const mask: number[] = [];
  for (const length of lengths) {
    for (let t = 0; t < cols; t++) {
      const real = t < length;
      inputIds.push(real ? rng.int(config.vocabSize) : 0);
      targets.push(real ? rng.int(config.vocabSize) : 0);
      mask.push(real ? 1 : 0);
    }
  }
  return { rows: lengths.length, cols, inputIds, targets, mask };
}

export function floatTensor(dtype: FloatDType, values: ArrayLike<number>, dims: number[]): HostTensor {
  return { dtype, dims, data: dtype === 'float64' ? Float64Array.from(values) : Float32Array.from(values) };
}

export function weightFeeds(weights: Weights, dtype: FloatDType): Feeds {
  const feeds: Feeds = {};
  for (const [name, t] of weights) feeds[name] = floatTensor(dtype, t.data, t.dims);
  return feeds;
}

export function tokenFeeds(batch: TestBatch): Feeds {
  const dims = [batch.rows, batch.cols];
  return {
    input_ids: { dtype: 'int64', dims, data: BigInt64Array.from(batch.inputIds.map(BigInt)) },
    targets: { dtype: 'int64', dims, data: BigInt64Array.from(batch.targets.map(BigInt)) },
  };
}

export async function openGraph(built: BuiltGraph, threads = 1): Promise<{ session: Session; run: (feeds: Feeds, outputs?: string[]) => Promise<Record<string, Float64Array>> }> {
  const session = await Session.create(built.model, { threads, label: 'test graph' });
  return {
    session,
    run: async (feeds, outputs = built.outputNames) => {
      const result = await session.run(feeds, outputs);
      const out: Record<string, Float64Array> = {};
      for (const [name, t] of Object.entries(result)) out[name] = Float64Array.from(t.data as Float64Array);
      return out;
    },
  };
}
