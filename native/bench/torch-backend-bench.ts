import { Rng } from '../../core/rng.ts';
import { checkpointLayout } from '../io/checkpoint.ts';
import { LORA_TARGETS } from '../model/lora-config.ts';
import { TorchLearner } from '../torch/torch-learner.ts';
import { TorchWorker, type TorchDevice } from '../torch/torch-worker.ts';
import { parseLearnerConfig } from '../train/learner-config.ts';

export interface TorchBackendBenchOptions {
  /** The checkpoint the worker loads (the real-size bench's random one). */
  readonly dir: string;
  readonly rows: number;
  readonly cols: number;
  readonly steps: number;
  readonly warmups: number;
  readonly seed: number;
  readonly threads: number;
  readonly lr: number;
  /** LoRA rank: an adapter of this rank on all seven projections instead of every weight. */
  readonly adapterRank?: number;
  readonly device?: TorchDevice;
  readonly python?: string;
}

/**
 * A training step of ludus's objective on the torch backend (native/torch), on the batch the onnxruntime learner's
 * bench takes (benchTrainOn: the same seeded tokens and advantages, every position trained; the behaviour
 * log-probabilities are those of a uniform policy here, since the worker does not score): the median step after the
 * warm-ups, and the worker's peak memory.
 */
export async function benchTorchBackend(options: TorchBackendBenchOptions): Promise<Record<string, number | string>> {
  const worker = await TorchWorker.start({ threads: options.threads, device: options.device ?? 'auto', ...(options.python ? { python: options.python } : {}) });
  try {
    const layout = await checkpointLayout(options.dir);
    const { config } = layout;
    const learner = parseLearnerConfig({ objective: 'policy-gradient', optimizer: { lr: options.lr } });
    const lora = options.adapterRank === undefined ? undefined : { config: { r: options.adapterRank, alpha: 2 * options.adapterRank, targetModules: [...LORA_TARGETS], initStdB: 0 }, seed: options.seed };
    const torch = await TorchLearner.create(worker, { layout, learner, ...(lora ? { lora } : {}) });
    const rng = new Rng(options.seed);
    const { rows, cols } = options;
    const n = rows * cols;
    const batch = {
      rows,
      cols,
      inputIds: Int32Array.from({ length: n }, () => rng.int(config.vocabSize)),
      targets: Int32Array.from({ length: n }, () => rng.int(config.vocabSize)),
      lossMask: new Float32Array(n).fill(1),
      advantages: Float32Array.from({ length: rows }, () => rng.normal()),
      oldLogprobs: new Float32Array(n).fill(-Math.log(config.vocabSize)),
    };
    const step = async () => {
      await torch.forwardBackward(batch);
      await torch.optimStep();
    };
    for (let i = 0; i < options.warmups; i++) await step();
    const times: number[] = [];
    for (let i = 0; i < options.steps; i++) {
      const start = performance.now();
      await step();
      times.push(performance.now() - start);
    }
    const memory = (await worker.request('memory')).header as Record<string, number>;
    const stepMs = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
    return {
      torch_train_tok_s: Math.round(n / (stepMs / 1000)),
      torch_train_step_ms: Number(stepMs.toFixed(1)),
      torch_peak_rss_mb: memory.rss_peak_mb,
      ...(memory.cuda_peak_mb !== undefined ? { torch_cuda_peak_mb: memory.cuda_peak_mb } : {}),
      torch_device: worker.info.device,
      torch_version: worker.info.torch,
    };
  } finally {
    await worker.close();
  }
}
