import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { LudusError, fail } from '../core/errors.ts';
import { readGpuEnvironment, webgpuMissing } from './gpu-environment.ts';
import { Graph, type DType, type TypedArray } from './onnx/graph.ts';

/** The one module that touches onnxruntime-node. Everything else passes plain typed arrays. */

export type Device = 'cpu' | 'cuda' | 'webgpu';
export const DEVICES: readonly Device[] = ['cpu', 'cuda', 'webgpu'];

/** onnxruntime's name for each device's execution provider, as its verbose log prints it. */
export const PROVIDER_NAMES: Record<Device, string> = { cpu: 'CPUExecutionProvider', cuda: 'CUDAExecutionProvider', webgpu: 'WebGpuExecutionProvider' };

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
  /**
   * Outputs that stay where the device computed them (GPU memory under WebGPU, host memory elsewhere) and come back
   * as DeviceTensor, to be fed to a later run without passing through JavaScript: the decoder's resident KV caches.
   */
  residentOutputs?: readonly string[];
  /**
   * onnxruntime's verbose session log on the process's stderr (node placements; see placement.ts). Default: on where
   * the environment has LUDUS_ORT_VERBOSE=1, so the placement of any command's graphs can be read (docs/gpu.md).
   */
  verboseLog?: boolean;
  /**
   * Whether the session's intra-op threads spin for work rather than sleep (ours; default 'off'). 'idle': they spin
   * between operators and on between runs, for a session that has the cores to itself (a solo or stacked decoder,
   * the learner, a scorer): a decode step at B = 1 is many small operators, and waking sleeping threads for each one
   * cost solo decode 2.7x. 'within-run': they spin between operators but stop when a run returns
   * (onnxruntime's session.force_spinning_stop), for sessions that alternate token by token (the members of a tandem
   * decoder), whose threads spinning on after their run would take the cores from the other member's
   * (docs/performance.md).
   */
  spinning?: Spinning;
  /**
   * A path prefix under which onnxruntime writes its profile of this session (every node's kernel time, as Chrome
   * trace JSON: `<prefix><label>_<date>.json`) when the session is released; `ludus bench profile` sums it by operator.
   * Default: the environment's LUDUS_ORT_PROFILE, so any command's graphs can be profiled without a flag of its own.
   */
  profile?: string;
}

export type Spinning = 'off' | 'within-run' | 'idle';

export interface HostTensor {
  dtype: DType;
  dims: readonly number[];
  data: TypedArray;
}

export type Feeds = Record<string, HostTensor>;

/**
 * A tensor onnxruntime keeps on the session's device (a GPU buffer under WebGPU; host memory on the CPU), never read
 * by JavaScript: fed back to a later run as is. The owner disposes of it when it is replaced.
 */
export class DeviceTensor {
  private constructor(private readonly inner: ort.Tensor) {}

  static wrap(inner: ort.Tensor): DeviceTensor {
    return new DeviceTensor(inner);
  }

  get dims(): readonly number[] {
    return this.inner.dims;
  }

  /** Where onnxruntime keeps it: 'cpu' or 'gpu-buffer'. */
  get location(): string {
    return this.inner.location;
  }

  /** @internal the tensor handed back to onnxruntime. */
  get tensor(): ort.Tensor {
    return this.inner;
  }

  dispose(): void {
    this.inner.dispose();
  }
}

export interface RunResult {
  host: Record<string, HostTensor>;
  resident: Record<string, DeviceTensor>;
}

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

const executionProviders = (device: Device): ort.InferenceSession.SessionOptions['executionProviders'] => (device === 'cpu' ? ['cpu'] : [device, 'cpu']);

/** One session of a one-node graph on `device` alone: whether onnxruntime can open that device at all. */
async function probe(device: Device): Promise<string | null> {
  const g = new Graph('probe');
  const x = g.input('x', 'float32', [1]);
  g.output(g.op1('Add', [x, x]), 'y');
  try {
    const session = await ort.InferenceSession.create(g.toBytes(), { executionProviders: [device], logSeverityLevel: 3 });
    await session.release();
    return null;
  } catch (error) {
    return (error as Error).message.split('\n')[0].replace(/^.*?(Failed to|No supported)/, '$1');
  }
}

const probes = new Map<Device, Promise<void>>();

/** Fails with DEVICE_UNAVAILABLE, saying what is missing, where `device` cannot run here. Checked once per process. */
export function ensureDevice(device: Device): Promise<void> {
  if (device === 'cpu') return Promise.resolve();
  let checked = probes.get(device);
  if (!checked) {
    checked = checkDevice(device);
    probes.set(device, checked);
  }
  return checked;
}

async function checkDevice(device: Device): Promise<void> {
  if (device === 'cuda' && !cudaAvailable()) fail('DEVICE_UNAVAILABLE', `--device cuda: ${CUDA_INSTALL_HINT}`, { device });
  const refusal = await probe(device);
  if (refusal === null) return;
  if (device === 'cuda') {
    fail('DEVICE_UNAVAILABLE', `--device cuda: onnxruntime could not start its CUDA provider (${refusal}); it needs an NVIDIA driver, CUDA 12 and cuDNN 9 on the library path`, { device, refusal });
  }
  const missing = webgpuMissing(readGpuEnvironment());
  const what = missing.length > 0 ? `missing: ${missing.join('; ')}` : 'the GPU driver offered no adapter Dawn accepts';
  fail('DEVICE_UNAVAILABLE', `--device webgpu: no usable WebGPU adapter (onnxruntime: ${refusal}); ${what}. Use --device cpu here.`, { device, refusal, missing });
}

export class Session {
  private constructor(
    private readonly inner: ort.InferenceSession,
    readonly label: string,
    readonly device: Device,
    private readonly resident: ReadonlySet<string>,
    private readonly profiling: boolean,
  ) {}

  static async create(model: Uint8Array, options: SessionOptions = {}): Promise<Session> {
    const device = options.device ?? 'cpu';
    const label = options.label ?? 'graph';
    await ensureDevice(device);
    const resident = options.residentOutputs ?? [];
    const profile = options.profile ?? (process.env.LUDUS_ORT_PROFILE || undefined);
    try {
      const inner = await ort.InferenceSession.create(model, {
        executionProviders: executionProviders(device),
        intraOpNumThreads: options.threads ?? 0,
        interOpNumThreads: 1,
        graphOptimizationLevel: 'all',
        enableCpuMemArena: options.memoryArena ?? true,
        enableMemPattern: true,
        executionMode: 'sequential',
        extra: { session: { intra_op: { allow_spinning: (options.spinning ?? 'off') === 'off' ? '0' : '1' }, force_spinning_stop: options.spinning === 'within-run' ? '1' : '0' } },
        logSeverityLevel: (options.verboseLog ?? process.env.LUDUS_ORT_VERBOSE === '1') ? 0 : 3,
        logVerbosityLevel: 0,
        ...(resident.length > 0 ? { preferredOutputLocation: Object.fromEntries(resident.map((name) => [name, device === 'webgpu' ? 'gpu-buffer' : 'cpu'])) } : {}),
        ...(options.externalData ? { externalData: options.externalData.map(({ path, data }) => ({ path, data })) } : {}),
        ...(profile ? { enableProfiling: true, profileFilePrefix: `${profile}${label.replace(/[^A-Za-z0-9.-]+/g, '-')}` } : {}),
      } as ort.InferenceSession.SessionOptions);
      return new Session(inner, label, device, new Set(resident), profile !== undefined);
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
    return (await this.runWith(feeds, {}, outputs, preallocated)).host;
  }

  /**
   * Runs the graph with some inputs already on the device (`resident`, from an earlier run); the outputs named in
   * SessionOptions.residentOutputs come back as DeviceTensor, the others as host tensors.
   */
  async runWith(feeds: Feeds, resident: Record<string, DeviceTensor>, outputs: readonly string[], preallocated: Feeds = {}): Promise<RunResult> {
    const ortFeeds: Record<string, ort.Tensor> = {};
    for (const [name, t] of Object.entries(feeds)) ortFeeds[name] = toOrt(t);
    for (const [name, t] of Object.entries(resident)) ortFeeds[name] = t.tensor;
    const fetches: Record<string, ort.Tensor | null> = {};
    for (const name of outputs) fetches[name] = preallocated[name] ? toOrt(preallocated[name]) : null;
    let result: ort.InferenceSession.ReturnType;
    try {
      result = await this.inner.run(ortFeeds, fetches as ort.InferenceSession.FetchesType);
    } catch (error) {
      throw new LudusError('ENGINE_RUN_FAILED', `running ${this.label} failed: ${(error as Error).message}`, { label: this.label });
    }
    const out: RunResult = { host: {}, resident: {} };
    for (const name of outputs) {
      if (preallocated[name]) continue;
      const t = result[name];
      if (this.resident.has(name)) out.resident[name] = DeviceTensor.wrap(t);
      else out.host[name] = { dtype: t.type as DType, dims: t.dims, data: t.data as TypedArray };
    }
    return out;
  }

  async release(): Promise<void> {
    if (this.profiling) this.inner.endProfiling();
    await this.inner.release();
  }
}

function toOrt(t: HostTensor): ort.Tensor {
  return new ort.Tensor(ORT_TYPE[t.dtype], t.data as never, t.dims as number[]);
}
