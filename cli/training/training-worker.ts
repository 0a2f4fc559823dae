import { parentPort } from 'node:worker_threads';
import type { Device } from '../../native/ort.ts';
import { EventEmitter } from 'eventemitter3';
import type { LudusEmitter, LudusEvent } from '../../core/events.ts';
import type { CallContext } from '../../native/worker/protocol.ts';
import { serveMethods } from '../../native/worker/serve.ts';
import type { MetricsLine } from '../../engine/trainer/metrics-line.ts';
import type { ResumeMode } from '../../engine/trainer/run-dir.ts';
import { PauseGate } from '../../engine/trainer/pause-gate.ts';
import { advantageFor, gameFor } from '../../engine/trainer/run-pieces.ts';
import type { TrainConfig } from '../../engine/trainer/train-config.ts';
import { train, type TrainResult } from '../../engine/trainer/trainer.ts';
import { composePlugins } from '../../composition/compose.ts';
import { loadPluginFiles } from '../../composition/plugin-files.ts';
import { fail } from '../../core/errors.ts';

/** A run as plain data: the game and its pieces are built in the worker from the config's names and plugin files. */
export interface WorkerTrainSpec {
  out: string;
  config: TrainConfig;
  resume?: ResumeMode;
  threads?: number;
  device?: Device;
  stopAfter?: number;
  /** Forward the run's events (someone is watching); token events are then streamed as decoded. */
  live: boolean;
}

/** What the worker streams back during a run: the events of one turn of its event loop, or a finished step. */
export type TrainingWorkerMessage = { kind: 'events'; events: LudusEvent[] } | { kind: 'step'; line: MetricsLine; total: number; checkpointed: boolean };

/**
 * The RL loop behind a worker thread: decoding, learning and file writes all run there, so the thread that serves
 * the viewer and draws the progress bar never waits on onnxruntime. One run per worker. The worker composes its own
 * catalog (built-in plugins and the config's plugin files): functions do not cross threads.
 */
export function trainingMethods() {
  const gate = new PauseGate();
  const stop = new AbortController();
  return {
    async train(context: CallContext<TrainingWorkerMessage>, spec: WorkerTrainSpec): Promise<TrainResult> {
      const catalog = await composePlugins(await loadPluginFiles(spec.config.plugins));
      const game = gameFor(catalog, spec.config);
      const advantage = advantageFor(catalog, spec.config);
      // Events of one decoding step go out as one message, once the step has handed the thread back.
      let pending: LudusEvent[] = [];
      const flush = () => {
        if (pending.length === 0) return;
        context.emit({ kind: 'events', events: pending });
        pending = [];
      };
      let events: LudusEmitter | undefined;
      if (spec.live) {
        events = new EventEmitter();
        events.on('event', (event) => {
          if (pending.length === 0) setImmediate(flush);
          pending.push(event);
        });
      }
      try {
        const { out, config, resume, threads, device, stopAfter } = spec;
        const onStep = (line: MetricsLine, total: number, checkpointed: boolean) => {
          flush();
          context.emit({ kind: 'step', line, total, checkpointed });
        };
        return await train({ out, config, game, advantage, resume, threads, device, stopAfter, events, gate, stop: stop.signal, onStep });
      } finally {
        flush();
      }
    },
    pause(_: CallContext): void {
      gate.pause();
    },
    resume(_: CallContext): void {
      gate.resume();
    },
    /** Stop at the next step boundary, checkpointed there (a paused run stops without taking another step). */
    stop(_: CallContext): void {
      stop.abort();
      gate.resume();
    },
  };
}

export type TrainingMethods = ReturnType<typeof trainingMethods>;

export function start(): void {
  serveMethods(parentPort ?? fail('WORKER_FAILED', `${import.meta.url} runs only as a worker thread`), trainingMethods());
}
