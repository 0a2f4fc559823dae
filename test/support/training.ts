import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composePlugins } from '../../composition/compose.ts';
import { loadPluginFiles } from '../../composition/plugin-files.ts';
import { advantageFor, gameFor } from '../../engine/trainer/run-pieces.ts';
import { TrainConfigSchema, type TrainConfig, type TrainConfigInput } from '../../engine/trainer/train-config.ts';
import { train, type TrainResult, type TrainRun } from '../../engine/trainer/trainer.ts';
import { readSafetensors } from '../../native/io/safetensors.ts';

/** A training config on the shipped base at a tiny scale: one problem × a group of 4 per step, short responses. */
export const tinyConfig = (overrides: Partial<TrainConfigInput> = {}): TrainConfig =>
  TrainConfigSchema.parse({ game: 'tandem', steps: 4, problemsPerStep: 1, groupSize: 4, maxNewTokens: 96, checkpointEvery: 2, validateEvery: 0, finalComparison: 0, ...overrides });

/** Trains in-process from the catalog (built-in plugins and the config's plugin files), into a fresh directory unless `out` is given. */
export async function runTraining(config: TrainConfig, options: Partial<Omit<TrainRun, 'config' | 'game' | 'advantage'>> = {}): Promise<{ out: string; result: TrainResult }> {
  const catalog = await composePlugins(await loadPluginFiles(config.plugins));
  const out = options.out ?? (await mkdtemp(join(tmpdir(), 'ludus-train-')));
  const result = await train({ threads: 1, ...options, out, config, game: gameFor(catalog, config), advantage: advantageFor(catalog, config) });
  return { out, result };
}

export const jsonl = async <T>(path: string): Promise<T[]> =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);

/** The largest difference between two safetensors files' tensors (by name), relative to the first's largest magnitude. */
export async function relativeGap(path: string, other: string): Promise<number> {
  const [x, y] = [(await readSafetensors(path)).tensors, (await readSafetensors(other)).tensors];
  let gap = 0;
  let scale = 0;
  for (const [name, t] of x) {
    const data = y.get(name)!.data;
    t.data.forEach((v, j) => {
      gap = Math.max(gap, Math.abs(v - data[j]));
      scale = Math.max(scale, Math.abs(v));
    });
  }
  return gap / scale;
}

/**
 * A run's metrics lines less what differs between two runs of the same training by design: the wall-clock `seconds`,
 * and the bytes a remote learner's link carried (`policies.<name>.link_bytes`, absent in-process).
 */
export async function runMetrics(out: string): Promise<Record<string, unknown>[]> {
  const lines = await jsonl<Record<string, unknown> & { policies: Record<string, Record<string, unknown>> }>(join(out, 'metrics.jsonl'));
  return lines.map(({ seconds: _, policies, ...line }) => ({ ...line, policies: Object.fromEntries(Object.entries(policies).map(([name, { link_bytes: _bytes, ...metrics }]) => [name, metrics])) }));
}
