import type { Command } from 'commander';
import type { View } from '../core/game/view.ts';
import type { LudusEmitter } from '../core/events.ts';
import { parsePort } from './options.ts';
import { newControlToken } from '../server/control-token.ts';
import type { RunControl } from '../server/hub.ts';
import type { RunStatus } from '../server/wire.ts';
import { liveRun } from '../server/live-run.ts';
import { spectatorView } from '../server/spectator-view.ts';
import { startViewerServer, type ViewerServer } from '../server/viewer-server.ts';

export const DEFAULT_VIEWER_PORT = 7373;

export interface WatchOptions {
  watch: boolean;
  port?: number;
  allowOrigin: string[];
}

/** --watch / --no-watch / --port / --allow-origin, the same on every command that can show a viewer. */
export function watchOptions(command: Command, what: string): Command {
  return command
    .option('--watch', `watch ${what} live in the browser viewer (the default)`, true)
    .option('--no-watch', 'no viewer')
    .option('--port <n>', `viewer port (0 picks a free one; default ${DEFAULT_VIEWER_PORT})`, parsePort)
    .option('--allow-origin <origin>', 'also accept WebSocket connections from pages of this origin (repeatable)', (v, all: string[]) => [...all, v], []);
}

export async function startViewer(opts: WatchOptions): Promise<ViewerServer> {
  return startViewerServer({ port: opts.port ?? DEFAULT_VIEWER_PORT, allowOrigins: opts.allowOrigin });
}

export interface WatchedRun {
  readonly server: ViewerServer;
  readonly events: LudusEmitter;
  readonly token: string;
}

/** Starts the viewer with one live run on it and prints where to watch it and the run's control token (stderr). */
export async function watchRun<Problem>(
  opts: WatchOptions,
  run: { id: string; game: string; view: View<string, Problem>; headline: readonly string[]; control: Omit<RunControl, 'token'> },
): Promise<WatchedRun> {
  const server = await startViewer(opts);
  const token = newControlToken();
  const events = liveRun(server.hub, { id: run.id, game: run.game, status: 'running', view: spectatorView(run.view), headline: run.headline, control: { ...run.control, token } });
  process.stderr.write(`watch: ${server.url}\ncontrol token for run ${run.id}: ${token}\n`);
  return { server, events, token };
}

/**
 * Closes the viewer after telling its spectators how each run ended, so the page and the terminal agree: the status
 * goes out in a last frame, given a moment to leave, before the server closes.
 */
export async function closeViewer(server: ViewerServer, runs: readonly string[], status: RunStatus): Promise<void> {
  for (const run of runs) server.hub.setStatus(run, status);
  server.hub.flush();
  await new Promise((resolve) => setTimeout(resolve, 100));
  await server.close();
}

/**
 * Calls `end` once the process that started this one is gone, when that was npx (`npm exec` sets npm_command=exec):
 * npx does not pass a kill on to the command it runs, so `kill $!` after `npx ludus serve &` would end npx and leave
 * the server running, re-parented. Polled once a second; the timer does not keep the process alive.
 */
export function endWithNpx(end: () => void, env: NodeJS.ProcessEnv = process.env): void {
  if (env.npm_command !== 'exec') return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    end();
  }, 1000);
  timer.unref();
}
