import type { Split, Task } from '../../core/tasks/task.ts';
import type { Device } from '../../native/ort.ts';
import type { ChatTemplateMode } from '../../plugins/tokenizers/prompt-text.ts';

/** What every evaluation that plays a game's matches on a task's problems takes: the problems, the sampling, the batching. */
export interface GameEvalOptions {
  readonly task: Task;
  readonly taskName: string;
  readonly split: Split;
  readonly problems: number;
  readonly samples: number;
  /** Sampling temperature; 0 is greedy decoding. */
  readonly temperature: number;
  /** The judging role's temperature where it differs (the verifier axes: greedy verdicts on sampled solutions). */
  readonly judgeTemperature?: number;
  readonly topP: number;
  readonly seed: number;
  /** Problems played together: their matches share the decoders' rows. */
  readonly batch: number;
  readonly bootstrap?: number;
  /** The prompt rule (`on` by default: through the tokenizer's chat template where it has one), as the trainings used it. */
  readonly chatTemplate?: ChatTemplateMode;
  readonly threads?: number;
  readonly device?: Device;
  readonly onProgress?: (done: number, total: number) => void;
}
