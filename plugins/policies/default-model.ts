import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fail } from '../../core/errors.ts';
import { jsonSyntaxProblem } from '../../core/json-syntax.ts';
import { packageRoot } from '../../native/io/package-root.ts';
import { checkTaskName } from '../tasks/registry.ts';
import { isHubId, resolveHubModel } from './hub-cache.ts';

/** The base models shipped in the repository (made by `ludus pretrain`), one directory per synthetic task. */
export const DEFAULT_MODELS_DIR = `${join(packageRoot(), 'models')}/`;

/** The task `--model default` stands for when no task is named. */
export const DEFAULT_TASK = 'arithmetic';

/** The file `ludus pretrain` writes beside a model: its config, the task included. */
export const PRETRAIN_CONFIG_FILE = 'pretrain_config.json';

/**
 * The task a model was made for, when its directory says (the `task` of its pretrain_config.json; `default` is the
 * shipped arithmetic base), so `--task` can default to it. Undefined for a model that does not say.
 */
export function trainedTask(model: string): string | undefined {
  if (model === 'default') return DEFAULT_TASK;
  const path = join(model, PRETRAIN_CONFIG_FILE);
  if (!existsSync(path)) return undefined;
  let task: unknown;
  try {
    task = (JSON.parse(readFileSync(path, 'utf8')) as { task?: unknown } | null)?.task;
  } catch (error) {
    return fail('CONFIG_INVALID', `${path}: not valid JSON (${jsonSyntaxProblem(error)})`, { file: path });
  }
  return typeof task === 'string' ? task : undefined;
}

/**
 * The shipped base a game starts from (its `defaultModel`: Tango and Agon name arithmetic-judge), as a directory, where
 * the run asks for no task other than that base's own; undefined where the task's plain default applies.
 */
export function gameShippedBase(defaultModel: string | undefined, task: string | undefined): string | undefined {
  if (defaultModel === undefined) return undefined;
  const dir = `${DEFAULT_MODELS_DIR}${defaultModel}`;
  return task === undefined || task === trainedTask(dir) ? dir : undefined;
}

export function shippedTasks(): string[] {
  if (!existsSync(DEFAULT_MODELS_DIR)) return [];
  return readdirSync(DEFAULT_MODELS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(`${DEFAULT_MODELS_DIR}${entry.name}/config.json`))
    .map((entry) => entry.name)
    .sort();
}

/**
 * `--model default` means the shipped base for the task at hand (arithmetic when none is named); a directory that
 * exists is itself; a hub id (`Qwen/Qwen3-0.6B`) that is not a directory resolves from the local Hugging Face cache.
 */
export function resolveModelDir(model: string, task = DEFAULT_TASK): string {
  if (model !== 'default') return existsSync(model) || !isHubId(model) ? model : resolveHubModel(model);
  checkTaskName(task);
  const shipped = shippedTasks();
  if (!shipped.includes(task)) {
    fail('INPUT_INVALID', `--model default has a shipped base only for ${shipped.join(', ') || 'no task'}; give --model DIR for task "${task}"`, { task, shipped });
  }
  return `${DEFAULT_MODELS_DIR}${task}`;
}
