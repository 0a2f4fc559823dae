/**
 * Train throughput of the learner: forward + backward + AdamW on a preset model.
 *   node --import tsx native/train/bench-throughput.ts [preset=qwen3-4m] [rows=16] [cols=128] [threads=2] [steps=10] [promptCols=0]
 * The first promptCols positions of every row are prompt (loss mask 0), as in RL batches.
 * Prints one JSON line (median and best step). A script, not a test: timings depend on the machine and its load.
 */
import { initWeights, presetConfig } from '../model/presets.ts';
import { parameterCount } from '../model/weights.ts';
import { Rng } from '../../core/rng.ts';
import { Learner } from './learner.ts';

const [preset = 'qwen3-4m', rowsArg = '16', colsArg = '128', threadsArg = '2', stepsArg = '10', promptArg = '0'] = process.argv.slice(2);
const [rows, cols, threads, steps, promptCols] = [rowsArg, colsArg, threadsArg, stepsArg, promptArg].map(Number);
const config = presetConfig(preset);
const learner = await Learner.create(config, initWeights(config, 0), { objective: 'policy-gradient', optimizer: { lr: 1e-4 }, threads });

const rng = new Rng(1);
const n = rows * cols;
const inputIds = Int32Array.from({ length: n }, () => rng.int(config.vocabSize));
const targets = Int32Array.from({ length: n }, () => rng.int(config.vocabSize));
const batch = {
  rows,
  cols,
  inputIds,
  targets,
  lossMask: Float32Array.from({ length: n }, (_, i) => (i % cols < promptCols ? 0 : 1)),
  advantages: Float32Array.from({ length: rows }, () => rng.normal()),
  oldLogprobs: await learner.score({ rows, cols, inputIds, targets }),
};

for (let i = 0; i < 2; i++) await learner.step(batch);
const times: number[] = [];
for (let i = 0; i < steps; i++) {
  const t0 = performance.now();
  await learner.step(batch);
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
const best = times[0];
console.log(
  JSON.stringify({
    engine: 'ludus-onnx',
    preset,
    params: parameterCount(config),
    rows,
    cols,
    threads,
    promptCols,
    stepMs: +median.toFixed(1),
    bestStepMs: +best.toFixed(1),
    tokensPerSecond: Math.round(n / (median / 1000)),
    bestTokensPerSecond: Math.round(n / (best / 1000)),
  }),
);
await learner.release();
