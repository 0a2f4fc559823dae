import { fileURLToPath } from 'node:url';
import { fail } from '../../core/errors.ts';

/** The base models shipped in the repository (made by `ludus pretrain`), one per synthetic task. */
export const DEFAULT_MODELS_DIR = fileURLToPath(new URL('../../models/', import.meta.url));

export const DEFAULT_MODEL_TASKS = ['arithmetic', 'last-letter'] as const;

/** `--model default` means the shipped base for the task at hand (arithmetic when none is named). */
export function resolveModelDir(model: string, task = 'arithmetic'): string {
  if (model !== 'default') return model;
  if (!(DEFAULT_MODEL_TASKS as readonly string[]).includes(task)) {
    fail('INPUT_INVALID', `--model default has a shipped base only for ${DEFAULT_MODEL_TASKS.join(', ')}; give --model DIR for task "${task}"`, { task });
  }
  return `${DEFAULT_MODELS_DIR}${task}`;
}
