import type { ModelConfig } from '../model/config.ts';
import { buildDecodeGraph, presentName, weightLocation, type DecodeGraphOptions, type WeightBinding } from '../model/decode-graph.ts';
import { availableBytes, ensureFits } from '../model/memory.ts';
import { OPSET, type OpSet } from '../model/op-set.ts';
import { weightsBytes, type Weights } from '../model/weights.ts';
import { Session, type Device, type Feeds, type Spinning } from '../ort.ts';

export type { WeightBinding } from '../model/decode-graph.ts';

export interface ModelSessionOptions {
  threads?: number;
  device?: Device;
  /** Default: 'inputs' on CPU, 'initializers' on a GPU (see WeightBinding). */
  weights?: WeightBinding;
  /** The ops the graph is written in (OpSet); default 'gpu' on a GPU, 'cpu' on the CPU. */
  opSet?: OpSet;
  /** Where a decode graph's KV caches live (DecodeGraphOptions.cache); default 'host'. */
  cache?: 'host' | 'resident';
  /** SessionOptions.spinning. */
  spinning?: Spinning;
}

/** The binding a session on `device` uses when none is asked for: inputs on CPU; on a GPU initializers, copied to the device once. */
export const resolveBinding = (options: ModelSessionOptions): WeightBinding => options.weights ?? (onGpu(options.device) ? 'initializers' : 'inputs');

export const onGpu = (device: Device | undefined): boolean => device !== undefined && device !== 'cpu';

/**
 * Models up to this size decode with their weights baked in as initializers on the CPU (ours): onnxruntime prepacks a
 * MatMul's constant operand, which it cannot do for an input, and a trained policy's session is rebuilt after each
 * update (tens of milliseconds at this size, once per optimizer step). Larger models are baked only while frozen
 * (decoderBinding).
 */
export const BAKED_MAX_BYTES = 256 * 2 ** 20;

/**
 * The binding a decoder member of `weights` takes when none is asked for: {@link resolveBinding}'s on a GPU; on the
 * CPU initializers for models up to `bakeMaxBytes` ({@link BAKED_MAX_BYTES}). A larger model is baked too while its policy has never
 * been updated in this decoder (`updated` false: a frozen junior, a reference, an entrant being evaluated) and baking
 * it (twice its bytes at the peak: the prepacked copy beside ours) takes at most half the memory available beyond
 * `reservedBytes` (what others will still take: a trainer's learner runs) (ours);
 * at qwen3-0.6b that decoded 1.14x faster at B = 64 and 1.41x at B = 16, for a 6.6 s open and one more copy of the
 * weights (docs/performance.md). Otherwise inputs: one host copy, and nothing compiled when the policy updates.
 */
export function decoderBinding(options: ModelSessionOptions, weights: Weights, updated: boolean, bakeMaxBytes = BAKED_MAX_BYTES, reservedBytes = 0): WeightBinding {
  if (options.weights !== undefined || onGpu(options.device)) return resolveBinding(options);
  const bytes = weightsBytes(weights);
  if (bytes <= bakeMaxBytes) return 'initializers';
  return !updated && 2 * bytes <= (availableBytes() - reservedBytes) / 2 ? 'initializers' : 'inputs';
}

/** Architectures equal under this key build identical graphs, so with weights as inputs they share one session. */
export function architectureKey(c: ModelConfig): string {
  const { raw: _raw, bosTokenId: _bos, eosTokenIds: _eos, maxPositionEmbeddings: _max, ...architecture } = c;
  return JSON.stringify(architecture);
}

/** Every weight as a zero-copy graph input. */
export function weightFeeds(weights: Weights): Feeds {
  const feeds: Feeds = {};
  for (const [name, t] of weights) feeds[name] = { dtype: 'float32', dims: t.dims, data: t.data };
  return feeds;
}

/** Builds and opens one model's inference graph; with 'initializers' the weights are handed to onnxruntime here. */
export async function openModelSession(
  config: ModelConfig,
  weights: Weights,
  output: DecodeGraphOptions['output'],
  options: ModelSessionOptions & { label: string; adapterStack?: boolean },
): Promise<Session> {
  const binding = resolveBinding(options);
  if (binding === 'initializers' && !onGpu(options.device)) {
    // On the CPU onnxruntime keeps its own copy of baked weights and prepacks the GEMM operands from it: two copies at
    // the peak (on a GPU the copy goes to the device, whose memory this process cannot see).
    const bytes = weightsBytes(weights);
    ensureFits(`session ${options.label} with its weights baked in as initializers`, 2 * bytes, { binding });
  }
  const opSet = options.opSet ?? (onGpu(options.device) ? 'gpu' : 'cpu');
  const graph = buildDecodeGraph(config, { output, weights: binding, adapterStack: options.adapterStack, opSet, cache: options.cache });
  const residentOutputs = options.cache === 'resident' ? Array.from({ length: config.numLayers }, (_, i) => [presentName(i, 'key'), presentName(i, 'value')]).flat() : undefined;
  const externalData =
    binding === 'initializers' ? [...weights].map(([name, t]) => ({ path: weightLocation(name), data: new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength) })) : undefined;
  return Session.create(graph.toBytes(OPSET[opSet]), { threads: options.threads, device: options.device, label: options.label, externalData, residentOutputs, spinning: options.spinning });
}
