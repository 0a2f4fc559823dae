import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fail } from '../../core/errors.ts';
import { packageRoot } from '../../native/io/package-root.ts';

/** The base models shipped in the repository (made by `ludus pretrain`), one directory per synthetic task. */
export const DEFAULT_MODELS_DIR = `${join(packageRoot(), 'models')}/`;

export function shippedTasks(): string[] {
  if (!existsSync(DEFAULT_MODELS_DIR)) return [];
  return readdirSync(DEFAULT_MODELS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(`${DEFAULT_MODELS_DIR}${entry.name}/config.json`))
    .map((entry) => entry.name)
    .sort();
}

/** `--model default` means the shipped base for the task at hand (arithmetic when none is named). */
export function resolveModelDir(model: string, task = 'arithmetic'): string {
  if (model !== 'default') return model;
  const shipped = shippedTasks();
  if (!shipped.includes(task)) {
    fail('INPUT_INVALID', `--model default has a shipped base only for ${shipped.join(', ') || 'no task'}; give --model DIR for task "${task}"`, { task, shipped });
  }
  return `${DEFAULT_MODELS_DIR}${task}`;
}
