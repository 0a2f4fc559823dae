import { dirname, resolve } from 'node:path';
import type { AnyGame } from '../core/catalog.ts';
import { parseConfig } from '../core/parse-config.ts';
import { planPolicies } from '../engine/trainer/policy-plan.ts';
import { advantageFor, gameFor } from '../engine/trainer/run-pieces.ts';
import { TrainConfigSchema, type TrainConfig } from '../engine/trainer/train-config.ts';
import { composePlugins } from './composition/compose.ts';
import type { PluginCatalog } from './composition/plugin-catalog.ts';
import { loadPluginFiles } from './composition/plugin-files.ts';
import { readConfigFile } from './config-file.ts';
import { trainedTask } from '../plugins/policies/default-model.ts';

export interface RunOptions {
  config?: string;
  plugin: string[];
  steps?: number;
  seed?: number;
  model?: string;
}

export interface ResolvedRun {
  readonly config: TrainConfig;
  readonly catalog: PluginCatalog;
  readonly game: AnyGame;
}

/**
 * A training config from a `--config` file, the command line and `--plugin` files, checked whole before anything
 * runs: the fields, the plugin files, the game and its knobs, the grader and estimator names, the policy bindings.
 * Plugin paths in a config file are relative to that file.
 */
export async function resolveRun(gameName: string, opts: RunOptions, overrides: Record<string, unknown> = {}): Promise<ResolvedRun> {
  const file = opts.config ? await readConfigFile(opts.config) : {};
  const model = opts.model ?? file.model;
  // The task defaults to the one the base model was pretrained on, where its directory says.
  const task = file.task === undefined && overrides.task === undefined && typeof model === 'string' ? trainedTask(model) : undefined;
  const filePlugins = Array.isArray(file.plugins) ? (file.plugins as unknown[]).map((p) => (typeof p === 'string' && opts.config ? resolve(dirname(opts.config), p) : p)) : file.plugins;
  const config = parseConfig(
    TrainConfigSchema,
    {
      ...(task !== undefined ? { task } : {}),
      ...file,
      ...(filePlugins !== undefined || opts.plugin.length > 0 ? { plugins: [...((filePlugins as unknown[]) ?? []), ...opts.plugin.map((p) => resolve(p))] } : {}),
      game: gameName,
      ...(opts.steps !== undefined ? { steps: opts.steps } : {}),
      ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
      ...(opts.model !== undefined ? { model: opts.model } : {}),
      ...overrides,
    },
    opts.config ?? 'training config',
  );
  const catalog = await composePlugins(await loadPluginFiles(config.plugins));
  const game = gameFor(catalog, config);
  advantageFor(catalog, config);
  planPolicies(game, config);
  return { config, catalog, game };
}

/** `--plugin FILE`, repeatable: the same on every command that takes a game. */
export const pluginOption = ['--plugin <file>', 'a plugin module (TypeScript or JavaScript) registering games and pieces; repeatable', (v: string, all: string[]) => [...all, v], [] as string[]] as const;
