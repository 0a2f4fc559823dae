import type { Task } from '../core/tasks/task.ts';
import type { GameEvalOptions } from '../lab/eval/game-eval-options.ts';

/** The command line's evaluation settings shared by the eval modes that play a game's matches (verifier axes, cascade). */
export interface GameEvalSettings extends Pick<GameEvalOptions, 'split' | 'problems' | 'samples' | 'temperature' | 'judgeTemperature' | 'topP' | 'seed' | 'device'> {
  /** Rows decoded together (`--batch`): problems are played `batch / samples` at a time. */
  readonly batch: number;
  readonly bootstrap: number;
  readonly threads: number;
  readonly onProgress?: (label: string, done: number, total: number) => void;
}

/** The settings as a game evaluation takes them, for one task, its progress reported under `label`. */
export function gameEvalOptions(settings: GameEvalSettings, task: Task, taskName: string, label: string): GameEvalOptions {
  const { onProgress } = settings;
  return {
    task,
    taskName,
    split: settings.split,
    problems: settings.problems,
    samples: settings.samples,
    temperature: settings.temperature,
    ...(settings.judgeTemperature === undefined ? {} : { judgeTemperature: settings.judgeTemperature }),
    topP: settings.topP,
    seed: settings.seed,
    batch: Math.max(1, Math.floor(settings.batch / settings.samples)),
    bootstrap: settings.bootstrap,
    threads: settings.threads,
    ...(settings.device ? { device: settings.device } : {}),
    ...(onProgress ? { onProgress: (done: number, total: number) => onProgress(label, done, total) } : {}),
  };
}
