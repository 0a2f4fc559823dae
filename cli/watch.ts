import type { Command } from 'commander';
import type { View } from '../core/game/view.ts';
import type { LudusEmitter } from '../core/events.ts';
import { parsePort } from './options.ts';
import { newControlToken } from '../server/control-token.ts';
import type { RunControl } from '../server/hub.ts';
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
