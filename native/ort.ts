import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { LudusError, fail } from '../core/errors.ts';
import type { DType, TypedArray } from './onnx/graph.ts';

/** The one module that touches onnxruntime-node. Everything else passes plain typed arrays. */

export type Device = 'cpu' | 'cuda';

export interface SessionOptions {
  device?: Device;
  threads?: number;
  /** Human-readable label used in error messages. */
  label?: string;
  /**
   * The bytes of the graph's external initializers, by location (`Graph.externalInitializer`). onnxruntime copies
   * them into the session (to the device, for CUDA) once, at creation; the protobuf itself stays small.
   */
  externalData?: ReadonlyArray<{ path: string; data: Uint8Array }>;
  /** onnxruntime's CPU memory arena (default on). */
  memoryArena?: boolean;
}

export interface HostTensor {
  dtype: DType;
  dims: readonly number[];
  data: TypedArray;
}

export type Feeds = Record<string, HostTensor>;

const ORT_TYPE: Record<DType, ort.Tensor.Type> = {
  float32: 'float32', float16: 'float16', float64: 'float64', int64: 'int64', int32: 'int32', bool: 'bool', uint8: 'uint8',
};

/** The CUDA execution provider ships as a separate library next to the binding, fetched only on request. */
export function cudaAvailable(): boolean {
  const compiledIn = ort.listSupportedBackends().some((b) => b.name === 'cuda');
  const binding = createRequire(import.meta.url).resolve('onnxruntime-node');
  const providers = join(dirname(binding), '..', 'bin', 'napi-v6', `${process.platform}`, `${process.arch}`, 'libonnxruntime_providers_cuda.so');
  return compiledIn && existsSync(providers);
}

export const CUDA_INSTALL_HINT =
  'onnxruntime-node is installed without its CUDA binaries (the default: .npmrc skips their download). ' +
  'On a machine with an NVIDIA driver, CUDA 12 and cuDNN 9, fetch them once with ' +
  '`ONNXRUNTIME_NODE_INSTALL=cuda12 node node_modules/onnxruntime-node/script/install.js`, then pass --device cuda again.';

export class Session {
  private constructor(
    private readonly inner: ort.InferenceSession,
    readonly label: string,
  ) {}

  static async create(model: Uint8Array, options: SessionOptions = {}): Promise<Session> {
    const device = options.device ?? 'cpu';
    const label = options.label ?? 'graph';
    if (device === 'cuda' && !cudaAvailable()) fail('DEVICE_UNAVAILABLE', `--device cuda: ${CUDA_INSTALL_HINT}`);
    try {
      const inner = await ort.InferenceSession.create(model, {
        executionProviders: device === 'cuda' ? ['cuda', 'cpu'] : ['cpu'],
        intraOpNumThreads: options.threads ?? 0,
        interOpNumThreads: 1,
        graphOptimizationLevel: 'all',
        enableCpuMemArena: options.memoryArena ?? true,
        enableMemPattern: true,
        executionMode: 'sequential',
        logSeverityLevel: 3,
        ...(options.externalData ? { externalData: options.externalData.map(({ path, data }) => ({ path, data })) } : {}),
      } as ort.InferenceSession.SessionOptions);
      return new Session(inner, label);
    } catch (error) {
      throw new LudusError('GRAPH_INVALID', `onnxruntime rejected graph ${label}: ${(error as Error).message}`, { label });
    }
  }

  get inputNames(): readonly string[] {
    return this.inner.inputNames;
  }

  get outputNames(): readonly string[] {
    return this.inner.outputNames;
  }

  /**
   * Runs the graph. Inputs are passed zero-copy. `preallocated` outputs are written in place (the static KV
   * caches rely on it); the remaining requested outputs are returned as fresh host tensors.
   */
  async run(feeds: Feeds, outputs: readonly string[], preallocated: Feeds = {}): Promise<Record<string, HostTensor>> {
    const ortFeeds: Record<string, ort.Tensor> = {};
    for (const [name, t] of Object.entries(feeds)) ortFeeds[name] = toOrt(t);
    const fetches: Record<string, ort.Tensor | null> = {};
    for (const name of outputs) fetches[name] = preallocated[name] ? toOrt(preallocated[name]) : null;
    let result: ort.InferenceSession.ReturnType;
    try {
      result = await this.inner.run(ortFeeds, fetches as ort.InferenceSession.FetchesType);
    } catch (error) {
      throw new LudusError('ENGINE_RUN_FAILED', `running ${this.label} failed: ${(error as Error).message}`, { label: this.label });
    }
    const out: Record<string, HostTensor> = {};
    for (const name of outputs) {
      if (preallocated[name]) continue;
      const t = result[name];
      out[name] = { dtype: t.type as DType, dims: t.dims, data: t.data as TypedArray };
    }
    return out;
  }

  async release(): Promise<void> {
    await this.inner.release();
  }
}

function toOrt(t: HostTensor): ort.Tensor {
  return new ort.Tensor(ORT_TYPE[t.dtype], t.data as never, t.dims as number[]);
}
