import type { Command } from 'commander';
import { ownSecretsOnly } from '../../core/game/view.ts';
import { composePlugins } from '../composition/compose.ts';
import { fail } from '../../core/errors.ts';
import { warnOnStderr } from '../../engine/trainer/jsonl-log.ts';
import { findRunDirs, loadRecordedRun, type RecordedRun } from '../../server/run-replay.ts';
import { spectatorView } from '../../server/spectator-view.ts';
import { parsePort } from '../options.ts';
import { DEFAULT_VIEWER_PORT, startViewer, type WatchOptions } from '../watch.ts';

interface ServeOptions extends Omit<WatchOptions, 'watch'> {
  runs: string;
}

export function register(program: Command): void {
  program
    .command('serve')
    .description('the match viewer over recorded runs: every match replayed from its transcript, token by token, with the training curves')
    .requiredOption('--runs <dir>', 'a run directory (with transcripts.jsonl), or a directory of them')
    .option('--port <n>', `viewer port (0 picks a free one; default ${DEFAULT_VIEWER_PORT})`, parsePort)
    .option('--allow-origin <origin>', 'also accept WebSocket connections from pages of this origin (repeatable)', (v, all: string[]) => [...all, v], [])
    .action(async (opts: ServeOptions) => {
      const catalog = await composePlugins();
      const known = new Set(catalog.games.names);
      const gameOf = (name: string | undefined) => (name !== undefined && known.has(name) ? catalog.games.create(name, {}) : undefined);
      const runs = await readableRuns(await findRunDirs(opts.runs), (game, roles) => gameOf(game)?.trainable[0] ?? roles[0]);
      if (runs.length === 0) fail('FILE_NOT_FOUND', `${opts.runs}: none of its runs could be read (see the warnings above)`, { dir: opts.runs });
      const server = await startViewer({ ...opts, watch: true });
      for (const run of runs) {
        const game = gameOf(run.game);
        const view = game ? spectatorView(game.view) : spectatorView(ownSecretsOnly);
        server.hub.addRun({ id: run.id, game: run.game ?? 'unknown', status: 'recorded', view }, { archive: run.archive, metrics: run.metrics });
      }
      process.stderr.write(`watch: ${server.url}\nreplaying ${runs.map((run) => `${run.id} (${run.archive.summaries().length} matches)`).join(', ')}; Ctrl-C to stop\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
    });
}

/** Every run that reads back; one that does not (a corrupt log, no checkpoint, no permission) is skipped with a warning. */
async function readableRuns(dirs: readonly string[], judgedRole: Parameters<typeof loadRecordedRun>[1]): Promise<RecordedRun[]> {
  const runs: RecordedRun[] = [];
  for (const dir of dirs) {
    try {
      runs.push(await loadRecordedRun(dir, judgedRole));
    } catch (error) {
      if (typeof (error as { code?: unknown } | null)?.code !== 'string') throw error;
      warnOnStderr(`skipping ${dir}: ${(error as Error).message}`);
    }
  }
  return runs;
}
