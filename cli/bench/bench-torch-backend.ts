import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { packageRoot } from '../../native/io/package-root.ts';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { composePlugins } from '../../composition/compose.ts';
import { advantageFor, gameFor } from '../../engine/trainer/run-pieces.ts';
import { TrainConfigSchema } from '../../engine/trainer/train-config.ts';
import { train } from '../../engine/trainer/trainer.ts';
import { writeRandomCheckpoint } from '../../native/bench/random-checkpoint.ts';
import { largestGap, relativeL2 } from '../../native/bench/tensor-gap.ts';
import { benchTorchBackend } from '../../native/bench/torch-backend-bench.ts';
import { readJsonl } from '../../engine/trainer/jsonl-log.ts';
import type { TorchDevice, TorchStrategy } from '../../native/torch/torch-worker.ts';
import { newControlToken } from '../../server/control-token.ts';
import { TorchEngine } from '../../server/trainer-server/learner-engines.ts';
import { startTrainerServer } from '../../server/trainer-server/trainer-server.ts';

export const TORCH_BACKEND_CHECKS = ['equal', 'speed', 'overlap'] as const;
export type TorchBackendCheck = (typeof TORCH_BACKEND_CHECKS)[number];

export interface TorchBackendBenchCommand {
  readonly workerDevice: TorchDevice;
  readonly strategy: TorchStrategy;
  readonly python: string;
  readonly threads: number;
  /**
   * `equal`: 2 tandem steps on this worker against a CPU worker; `speed`: a full and a LoRA r=16 step at `preset`;
   * `overlap`: grpo's step time with rollouts on two `ludus serve-model` processes, at rolloutsAhead 0 and 1.
   */
  readonly checks: readonly TorchBackendCheck[];
  readonly preset: string;
  readonly rows: number;
  readonly cols: number;
  readonly steps: number;
  readonly onProgress?: (label: string) => void;
}

/**
 * The torch backend on its own machine (a GPU's check, docs/gpu.md): the same two tandem steps trained through a
 * trainer server on this worker (device, strategy) and on a CPU worker with DDP, their metrics and trained weights
 * and moments compared; and a full fine-tuning and a LoRA r = 16 step at a real shape, with tokens/s and peak memory.
 */
export async function benchTorchBackendCommand(options: TorchBackendBenchCommand): Promise<Record<string, unknown>> {
  const progress = options.onProgress ?? (() => {});
  const report: Record<string, unknown> = { load_average: loadavg()[0] };
  const root = await mkdtemp(join(tmpdir(), 'ludus-torch-bench-'));
  try {
    if (options.checks.includes('equal')) {
      const runs: Record<string, string> = {};
      for (const [label, device, strategy] of [['here', options.workerDevice, options.strategy], ['cpu', 'cpu', 'ddp']] as const) {
        progress(`2 tandem steps through a torch worker (${device}, ${strategy})`);
        runs[label] = await tandemThroughTorch(join(root, label), { python: options.python, threads: options.threads, device, strategy }, (info) => (report[`worker_${label}`] = info));
      }
      const metrics = async (out: string) => (await readJsonl<Record<string, unknown>>(join(out, 'metrics.jsonl'))).map(({ seconds: _s, policies, ...line }) => ({ ...line, policies: Object.fromEntries(Object.entries(policies as Record<string, Record<string, unknown>>).map(([name, { link_bytes: _b, ...rest }]) => [name, rest])) }));
      const file = (label: string, name: string) => join(runs[label], 'checkpoint', 'policies', 'senior', name);
      const equal = {
        metrics_max_abs_diff: largestGap(await metrics(runs.here), await metrics(runs.cpu)),
        weights_relative_l2: await relativeL2(file('cpu', 'model.safetensors'), file('here', 'model.safetensors')),
        moments_relative_l2: await relativeL2(file('cpu', 'optimizer.safetensors'), file('here', 'optimizer.safetensors')),
      };
      report.equal = { ...equal, within_1e3: Math.max(...Object.values(equal)) <= 1e-3 };
    }
    if (options.checks.includes('speed')) {
      const dir = join(root, options.preset);
      progress(`writing a random ${options.preset} checkpoint (BF16)`);
      await writeRandomCheckpoint(dir, { preset: options.preset, seed: 1, dtype: 'BF16' });
      const common = { dir, rows: options.rows, cols: options.cols, steps: options.steps, warmups: 1, seed: 1, threads: options.threads, lr: 1e-6, device: options.workerDevice, python: options.python };
      progress(`full fine-tuning, ${options.rows} × ${options.cols} tokens`);
      report.full = await benchTorchBackend(common);
      progress(`LoRA r=16, ${options.rows} × ${options.cols} tokens`);
      report.lora = await benchTorchBackend({ ...common, adapterRank: 16 });
      report.preset = options.preset;
    }
    if (options.checks.includes('overlap')) report.overlap = await overlap(root, options, progress);
    return report;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** Steps of the overlap runs; the first is left out of the median (its rollouts cannot overlap anything). */
const OVERLAP_STEPS = 6;

/**
 * grpo's step time with its rollouts on two `ludus serve-model` processes and its learning on this torch worker, the
 * weights kept there, at rolloutsAhead 0 and then 1 (no checkpoint inside the runs): the median step from the second.
 */
async function overlap(root: string, options: TorchBackendBenchCommand, progress: (label: string) => void): Promise<Record<string, unknown>> {
  const token = newControlToken();
  const servers = await Promise.all([0, 1].map(() => serveModel(token, root, options.threads)));
  const engine = await TorchEngine.open({ python: options.python, threads: options.threads, device: options.workerDevice, strategy: options.strategy });
  const trainer = await startTrainerServer({ host: '127.0.0.1', port: 0, threads: options.threads, task: 'arithmetic', token, engine, writeDirs: [root] });
  process.env[TOKEN_ENV] = token;
  try {
    const seconds: Record<string, number> = {};
    for (const ahead of [0, 1]) {
      progress(`grpo, ${OVERLAP_STEPS} steps, rollouts on two serve-model processes, learning on torch, rolloutsAhead ${ahead}`);
      const config = TrainConfigSchema.parse({
        game: 'grpo',
        steps: OVERLAP_STEPS,
        problemsPerStep: 8,
        groupSize: 4,
        checkpointEvery: OVERLAP_STEPS,
        validateEvery: 0,
        finalComparison: 0,
        rolloutsAhead: ahead,
        rolloutServers: { dialect: 'vllm', servers: servers.map((s) => s.url), tokenEnv: TOKEN_ENV },
        trainerServer: { url: trainer.url, tokenEnv: TOKEN_ENV },
      });
      const out = join(root, `overlap-${ahead}`);
      const catalog = await composePlugins();
      await train({ out, config, threads: options.threads, game: gameFor(catalog, config), advantage: advantageFor(catalog, config) });
      const steps = (await readJsonl<{ seconds: number }>(join(out, 'metrics.jsonl'))).slice(1).map((line) => line.seconds);
      seconds[`ahead_${ahead}_step_s`] = Number([...steps].sort((a, b) => a - b)[Math.floor(steps.length / 2)].toFixed(2));
    }
    return { ...seconds, ahead_1_over_0: Number((seconds.ahead_1_step_s / seconds.ahead_0_step_s).toFixed(3)), load_average_after: loadavg()[0] };
  } finally {
    delete process.env[TOKEN_ENV];
    await trainer.close();
    for (const server of servers) server.child.kill('SIGTERM');
  }
}

/** `ludus serve-model default` in a process of its own on a free loopback port, loading from `root`. */
function serveModel(token: string, root: string, threads: number): Promise<{ url: string; child: ChildProcess }> {
  const bin = join(packageRoot(import.meta.url), 'bin', 'ludus.js');
  const child = spawn(process.execPath, [bin, 'serve-model', 'default', '--task', 'arithmetic', '--port', '0', '--rows', '16', '--threads', String(threads), '--allow-dir', root], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, LUDUS_TOKEN: token } });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`serve-model exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ url: (JSON.parse(line) as { url: string }).url, child }));
  });
}

/** The variable the bench's own trainer server token travels in, to the client it starts (never the user's LUDUS_TOKEN). */
const TOKEN_ENV = 'LUDUS_BENCH_TRAINER_TOKEN';

/** Two tandem steps of the tests' tiny setting (4 problems a step) through a trainer server on a torch worker; the run's directory. */
async function tandemThroughTorch(out: string, worker: { python: string; threads: number; device: TorchDevice; strategy: TorchStrategy }, describe: (info: Record<string, unknown>) => void): Promise<string> {
  const token = newControlToken();
  const engine = await TorchEngine.open(worker);
  describe(engine.describe());
  const server = await startTrainerServer({ host: '127.0.0.1', port: 0, threads: worker.threads, task: 'arithmetic', token, engine });
  process.env[TOKEN_ENV] = token;
  try {
    const config = TrainConfigSchema.parse({ game: 'tandem', steps: 2, problemsPerStep: 4, groupSize: 4, checkpointEvery: 1, validateEvery: 0, finalComparison: 0, trainerServer: { url: server.url, tokenEnv: TOKEN_ENV } });
    const catalog = await composePlugins();
    await train({ out, config, threads: worker.threads, game: gameFor(catalog, config), advantage: advantageFor(catalog, config) });
    return out;
  } finally {
    delete process.env[TOKEN_ENV];
    await server.close();
  }
}
