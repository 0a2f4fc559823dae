import { Rng } from '../../core/rng.ts';
import type { ModelConfig } from '../model/config.ts';
import { initWeights, presetConfig } from '../model/presets.ts';
import type { Weights } from '../model/weights.ts';
import { Learner } from '../train/learner.ts';
import { adaptedWeights, initAdapter, withAdapter } from '../model/lora.ts';
import { parseLoraConfig, type LoraConfigInput } from '../model/lora-config.ts';
import { median } from './engine-bench.ts';
import type { Device } from '../ort.ts';

export interface TrainBenchOptions {
  preset: string;
  rows: number;
  cols: number;
  threads: number;
  device?: Device;
  steps: number;
  seed: number;
  /** Train a LoRA adapter of this shape over the frozen weights instead of every weight. */
  adapter?: LoraConfigInput;
}

/** Forward + backward + AdamW on random tokens; the median step over `steps` timed steps after two warm-ups. */
export async function benchTrain(options: TrainBenchOptions): Promise<{ train_tok_s: number; train_step_ms: number }> {
  const config = presetConfig(options.preset);
  return benchTrainOn(config, initWeights(config, options.seed), { ...options, warmups: 2, lr: 1e-4 });
}

/** The trained model and weights: the base itself, or the base with a fresh adapter (its B nonzero, as after some training). */
function trainedModel(config: ModelConfig, weights: Weights, adapter: LoraConfigInput | undefined, seed: number): { config: ModelConfig; weights: Weights } {
  if (!adapter) return { config, weights };
  const adapted = withAdapter(config, parseLoraConfig({ initStdB: 0.01, ...adapter }));
  return { config: adapted, weights: adaptedWeights(weights, initAdapter(adapted, seed)) };
}

/** The same on given weights (trained in place): `warmups` untimed steps, then the median of `steps`. */
export async function benchTrainOn(
  config: ModelConfig,
  weights: Weights,
  options: Omit<TrainBenchOptions, 'preset'> & { warmups: number; lr: number },
): Promise<{ train_tok_s: number; train_step_ms: number }> {
  const model = trainedModel(config, weights, options.adapter, options.seed);
  const learner = await Learner.create(model.config, model.weights, { objective: 'policy-gradient', optimizer: { lr: options.lr }, threads: options.threads, device: options.device ?? 'cpu' });
  const rng = new Rng(options.seed);
  const { rows, cols } = options;
  const n = rows * cols;
  const inputIds = Int32Array.from({ length: n }, () => rng.int(config.vocabSize));
  const targets = Int32Array.from({ length: n }, () => rng.int(config.vocabSize));
  const batch = {
    rows,
    cols,
    inputIds,
    targets,
    lossMask: new Float32Array(n).fill(1),
    advantages: Float32Array.from({ length: rows }, () => rng.normal()),
    oldLogprobs: await learner.score({ rows, cols, inputIds, targets }),
  };
  for (let i = 0; i < options.warmups; i++) await learner.step(batch);
  const times: number[] = [];
  for (let i = 0; i < options.steps; i++) {
    const start = performance.now();
    await learner.step(batch);
    times.push(performance.now() - start);
  }
  await learner.release();
  const stepMs = median(times);
  return { train_tok_s: Math.round(n / (stepMs / 1000)), train_step_ms: Number(stepMs.toFixed(1)) };
}
