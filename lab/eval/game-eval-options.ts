import type { Split, Task } from '../../core/tasks/task.ts';
import type { Device } from '../../native/ort.ts';

/** What every evaluation that plays a game's matches on a task's problems takes: the problems, the sampling, the batching. */
export interface GameEvalOptions {
  readonly task: Task;
  readonly taskName: string;
  readonly split: Split;
  readonly problems: number;
  readonly samples: number;
  readonly temperature: number;
  readonly topP: number;
  readonly seed: number;
  /** Problems played together: their matches share the decoders' rows. */
  readonly batch: number;
  readonly bootstrap?: number;
  readonly threads?: number;
  readonly device?: Device;
  readonly onProgress?: (done: number, total: number) => void;
}
