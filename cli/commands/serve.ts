import type { Command } from 'commander';
import { ownSecretsOnly, type View } from '../../core/game/view.ts';
import type { Problem } from '../../core/tasks/task.ts';
import { gameFor } from '../../engine/trainer/run-pieces.ts';
import { findRunDirs, loadRecordedRun, type RecordedRun } from '../../server/run-replay.ts';
import { spectatorView } from '../../server/spectator-view.ts';
import { composePlugins } from '../../composition/compose.ts';
import { loadPluginFiles } from '../../composition/plugin-files.ts';
import { pluginOption } from '../run-config.ts';
import { fail } from '../../core/errors.ts';
import { warnOnStderr } from '../../engine/trainer/jsonl-log.ts';
import { parsePort } from '../options.ts';
import { DEFAULT_VIEWER_PORT, startViewer, type WatchOptions } from '../watch.ts';

interface ServeOptions extends Omit<WatchOptions, 'watch'> {
  runs: string;
  plugin: string[];
}

export function register(program: Command): void {
  program
    .command('serve')
    .description('the match viewer over recorded runs of any game: every match replayed from its transcript, turn by turn and token by token, with the training curves')
    .requiredOption('--runs <dir>', 'a run directory (with transcripts.jsonl), or a directory of them')
    .option(...pluginOption)
    .option('--port <n>', `viewer port (0 picks a free one; default ${DEFAULT_VIEWER_PORT})`, parsePort)
    .option('--allow-origin <origin>', 'also accept WebSocket connections from pages of this origin (repeatable)', (v, all: string[]) => [...all, v], [])
    .action(async (opts: ServeOptions) => {
      const runs = await readableRuns(await findRunDirs(opts.runs));
      if (runs.length === 0) fail('FILE_NOT_FOUND', `${opts.runs}: none of its runs could be read (see the warnings above)`, { dir: opts.runs });
      const server = await startViewer({ ...opts, watch: true });
      for (const run of runs) {
        server.hub.addRun({ id: run.id, game: run.game ?? 'unknown', status: 'recorded', view: spectatorView(await viewOf(run, opts.plugin)) }, { archive: run.archive, metrics: run.metrics });
      }
      process.stderr.write(`watch: ${server.url}\nreplaying ${runs.map((run) => `${run.id} (${run.archive.summaries().length} matches)`).join(', ')}; Ctrl-C to stop\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
    });
}

/** The run's game's own view (built from its config and plugins), so a replay hides what the live run hid. */
async function viewOf(run: RecordedRun, plugins: readonly string[]): Promise<View<string, Problem>> {
  if (!run.record) return ownSecretsOnly;
  const catalog = await composePlugins(await loadPluginFiles([...run.record.config.plugins, ...plugins]));
  return catalog.games.has(run.record.game) ? gameFor(catalog, run.record.config).view : ownSecretsOnly;
}

/** Every run that reads back; one that does not (a corrupt log, no tokenizer, no permission) is skipped with a warning. */
async function readableRuns(dirs: readonly string[]): Promise<RecordedRun[]> {
  const runs: RecordedRun[] = [];
  for (const dir of dirs) {
    try {
      runs.push(await loadRecordedRun(dir));
    } catch (error) {
      if (typeof (error as { code?: unknown } | null)?.code !== 'string') throw error;
      warnOnStderr(`skipping ${dir}: ${(error as Error).message}`);
    }
  }
  return runs;
}
