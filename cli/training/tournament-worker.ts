import { parentPort } from 'node:worker_threads';
import { EventEmitter } from 'eventemitter3';
import type { LudusEmitter, LudusEvent } from '../../core/events.ts';
import type { CallContext } from '../../native/worker/protocol.ts';
import { serveMethods } from '../../native/worker/serve.ts';
import type { ResumeMode } from '../../engine/trainer/run-dir.ts';
import { runTournament, type TournamentResult } from '../../lab/tournament/run-tournament.ts';
import type { Standing } from '../../lab/tournament/standings.ts';
import type { TournamentConfig } from '../../lab/tournament/tournament-config.ts';
import { composePlugins } from '../../composition/compose.ts';
import { loadPluginFiles } from '../../composition/plugin-files.ts';
import { fail } from '../../core/errors.ts';

/** A tournament as plain data: games and pieces are built in the worker from the config's names and plugin files. */
export interface WorkerTournamentSpec {
  out: string;
  config: TournamentConfig;
  resume?: ResumeMode;
  threads?: number;
  /** Forward the events of these games (someone is watching). */
  live: readonly string[];
}

/** What the worker streams back: one game's events of one turn of its event loop, or a finished round. */
export type TournamentWorkerMessage = { kind: 'events'; game: string; events: LudusEvent[] } | { kind: 'round'; round: number; rounds: number; standings: Standing[] };

/**
 * `ludus tournament` behind a worker thread, as `ludus train`'s run (training-worker.ts): matches, learning and file
 * writes run there, so the thread serving the viewer never waits on onnxruntime.
 */
export function tournamentMethods() {
  return {
    async tournament(context: CallContext<TournamentWorkerMessage>, spec: WorkerTournamentSpec): Promise<TournamentResult> {
      const catalog = await composePlugins(await loadPluginFiles(spec.config.plugins));
      const pending = new Map<string, LudusEvent[]>();
      const flush = () => {
        for (const [game, events] of pending) if (events.length > 0) context.emit({ kind: 'events', game, events });
        pending.clear();
      };
      const events: Record<string, LudusEmitter> = {};
      for (const game of spec.live) {
        const emitter: LudusEmitter = new EventEmitter();
        emitter.on('event', (event) => {
          if (pending.size === 0) setImmediate(flush);
          const held = pending.get(game) ?? [];
          held.push(event);
          pending.set(game, held);
        });
        events[game] = emitter;
      }
      try {
        return await runTournament({
          out: spec.out,
          config: spec.config,
          catalog,
          resume: spec.resume,
          threads: spec.threads,
          events,
          onRound: (round, rounds, standings) => {
            flush();
            context.emit({ kind: 'round', round, rounds, standings: [...standings] });
          },
        });
      } finally {
        flush();
      }
    },
  };
}

export type TournamentMethods = ReturnType<typeof tournamentMethods>;

export function start(): void {
  serveMethods(parentPort ?? fail('WORKER_FAILED', `${import.meta.url} runs only as a worker thread`), tournamentMethods());
}
