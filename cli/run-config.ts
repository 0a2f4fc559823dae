import { dirname, join, resolve } from 'node:path';
import { fail } from '../core/errors.ts';
import { pathExists } from '../native/io/files.ts';
import { RUN_FILE } from '../engine/trainer/run-dir.ts';
import type { AnyGame } from '../core/catalog.ts';
import { parseConfig } from '../core/parse-config.ts';
import { planPolicies } from '../engine/trainer/policy-plan.ts';
import { advantageFor, gameFor } from '../engine/trainer/run-pieces.ts';
import { TrainConfigSchema, type TrainConfig } from '../engine/trainer/train-config.ts';
import { composePlugins } from '../composition/compose.ts';
import type { PluginCatalog } from '../composition/plugin-catalog.ts';
import { loadPluginFiles } from '../composition/plugin-files.ts';
import { readConfigFile } from './config-file.ts';
import { gameShippedBase, trainedTask } from '../plugins/policies/default-model.ts';
import { graderForTask } from '../plugins/tasks/registry.ts';

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
 * Plugin paths in a config file are relative to that file. Without a `task`, the game's default task is played (else
 * the config's default); without a model, the game's default model (and its task) where the game names one; without a
 * `grader`, the task's own (exact for last-letter) or the config's default.
 */
export async function resolveRun(gameName: string, opts: RunOptions, overrides: Record<string, unknown> = {}, recorded?: Record<string, unknown>): Promise<ResolvedRun> {
  const file = opts.config ? await readConfigFile(opts.config) : (recorded ?? {});
  const first = await resolveWith(gameName, opts, file, overrides);
  // A game may name the shipped base it starts from (Tango, Agon: arithmetic-judge) where the run names no model (or
  // 'default') and no task other than the base's own.
  const named = overrides.model ?? opts.model ?? file.model;
  if (named !== undefined && named !== 'default') return first;
  const dir = gameShippedBase(first.game.defaultModel, (overrides.task ?? file.task) as string | undefined);
  if (dir === undefined) return first;
  return resolveWith(gameName, { ...opts, model: dir }, file, { ...overrides, ...(overrides.model !== undefined ? { model: dir } : {}) });
}

async function resolveWith(gameName: string, opts: RunOptions, file: Record<string, unknown>, overrides: Record<string, unknown>): Promise<ResolvedRun> {
  const model = overrides.model ?? opts.model ?? file.model;
  // A model directory that says which task it was pretrained on chooses the task (the shipped base follows the game).
  const modelTask = file.task === undefined && overrides.task === undefined && typeof model === 'string' && model !== 'default' ? trainedTask(model) : undefined;
  const filePlugins = Array.isArray(file.plugins) ? (file.plugins as unknown[]).map((p) => (typeof p === 'string' && opts.config ? resolve(dirname(opts.config), p) : p)) : file.plugins;
  const given: Record<string, unknown> = {
    ...(modelTask !== undefined ? { task: modelTask } : {}),
    ...file,
    ...(filePlugins !== undefined || opts.plugin.length > 0 ? { plugins: [...((filePlugins as unknown[]) ?? []), ...opts.plugin.map((p) => resolve(p))] } : {}),
    game: gameName,
    ...(opts.steps !== undefined ? { steps: opts.steps } : {}),
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.model !== undefined ? { model: opts.model } : {}),
    ...overrides,
  };
  const first = parseConfig(TrainConfigSchema, given, opts.config ?? 'training config');
  const catalog = await composePlugins(await loadPluginFiles(first.plugins));
  // A game may give run defaults of its own (a world game: RAE, no grader validation); the config's fields win.
  const runDefaults = gameFor(catalog, first).runDefaults ?? {};
  const unset = Object.fromEntries(Object.entries(runDefaults).filter(([key]) => given[key] === undefined));
  const parsed = Object.keys(unset).length > 0 ? parseConfig(TrainConfigSchema, { ...unset, ...given }, `${first.game}'s run defaults`) : first;
  // A game may name the task it is played on by default (Tango: last-letter); a task may need its own grader.
  const task = given.task === undefined ? (gameFor(catalog, parsed).defaultTask ?? parsed.task) : parsed.task;
  const grader = given.grader === undefined ? (graderForTask(task) ?? parsed.grader) : parsed.grader;
  const config: TrainConfig = { ...parsed, task, grader };
  const game = gameFor(catalog, config);
  advantageFor(catalog, config);
  planPolicies(game, config);
  return { config, catalog, game };
}

/**
 * The config a run in `out` was made with (its run.json), for `--resume` and `--restart` without `--config` and
 * `--plugin`: both are recorded there, plugin paths made absolute. undefined when `out` holds no run.json.
 */
export async function recordedConfig(out: string): Promise<Record<string, unknown> | undefined> {
  const file = join(out, RUN_FILE);
  if (!(await pathExists(file))) return undefined;
  const record = (await readConfigFile(file)) as { config?: unknown };
  if (typeof record.config !== 'object' || record.config === null) fail('DATA_INVALID', `${file}: holds no "config": not a run record of ludus train`, { file });
  return record.config as Record<string, unknown>;
}

/** `--plugin FILE`, repeatable: the same on every command that takes a game. */
export const pluginOption = ['--plugin <file>', 'a plugin module (TypeScript or JavaScript) registering games and pieces; repeatable', (v: string, all: string[]) => [...all, v], [] as string[]] as const;
