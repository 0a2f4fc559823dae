import type { LudusEmitter, LudusEvent } from '../../core/events.ts';
import { siblingModule } from '../../native/io/package-root.ts';
import { WorkerRpc } from '../../native/worker/worker-rpc.ts';
import type { MetricsLine } from '../../engine/trainer/metrics-line.ts';
import type { TrainResult } from '../../engine/trainer/trainer.ts';
import type { TrainingMethods, WorkerTrainSpec } from './training-worker.ts';

export interface WorkerTraining {
  /** Settles when the run ends (the worker is then stopped); a coded error keeps its code. */
  readonly done: Promise<TrainResult>;
  /** Pause before the next step / go on. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Stop at the next step boundary with a checkpoint there; `done` then settles with `stopped`. */
  stop(): Promise<void>;
}

/**
 * Starts `ludus train`'s run in a worker thread (see training-worker.ts). Its events are re-emitted on `events`,
 * numbered as the worker numbered them; `onStep` hears every finished step.
 */
export async function trainInWorker(
  spec: Omit<WorkerTrainSpec, 'live'>,
  listeners: { events?: LudusEmitter; onStep?: (line: MetricsLine, total: number, checkpointed: boolean) => void } = {},
): Promise<WorkerTraining> {
  const rpc = await WorkerRpc.spawn<TrainingMethods>(siblingModule(import.meta.url, 'training-worker'), { label: 'training worker' });
  const emitter = listeners.events;
  const emit = (event: LudusEvent) => {
    if (!emitter) return;
    (emitter.emit as (type: string, event: LudusEvent) => boolean)(event.type, event);
    emitter.emit('event', event);
  };
  const done = rpc
    .call('train', [{ ...spec, live: listeners.events !== undefined }], {
      onEvent: (message) => {
        if (message.kind === 'events') for (const event of message.events) emit(event);
        else listeners.onStep?.(message.line, message.total, message.checkpointed);
      },
    })
    .finally(() => rpc.terminate());
  // After the run has ended there is nothing to pause; a failed worker reports through `done`.
  const control = (action: 'pause' | 'resume' | 'stop') => () => rpc.call(action, []).catch(() => undefined);
  return { done, pause: control('pause'), resume: control('resume'), stop: control('stop') };
}
