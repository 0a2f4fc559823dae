import { readFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { LudusEvent, RunSummary } from '../../core/events.ts';
import { pathExists } from '../../native/io/files.ts';
import { SUMMARY_FILE } from '../../engine/trainer/run-summary-file.ts';
import { loadRecordedTournament, tournamentDirOf, type RecordedTournament } from '../tournament-replay.ts';
import type { Game } from '../../core/game/define-game.ts';
import { DEFAULT_HEADLINE } from '../../core/game/headline.ts';
import { ownSecretsOnly } from '../../core/game/view.ts';
import { gameFor } from '../../engine/trainer/run-pieces.ts';
import { findRunDirs, loadRecordedRun, type RecordedRun } from '../../server/run-replay.ts';
import { spectatorView } from '../../server/spectator-view.ts';
import { composePlugins } from '../../composition/compose.ts';
import { loadPluginFiles } from '../../composition/plugin-files.ts';
import { pluginOption } from '../run-config.ts';
import { fail } from '../../core/errors.ts';
import { warnOnStderr } from '../../engine/trainer/jsonl-log.ts';
import { parsePort } from '../options.ts';
import { DEFAULT_VIEWER_PORT, endWithNpx, startViewer, type WatchOptions } from '../watch.ts';
import { untilSignal } from '../until-signal.ts';

interface ServeOptions extends Omit<WatchOptions, 'watch'> {
  runs: string;
  plugin: string[];
}

export function register(program: Command): void {
  program
    .command('serve')
    .description('the match viewer over recorded runs of any game: every match replayed from its transcript, turn by turn and token by token, with the training curves')
    .requiredOption('--runs <dirs>', 'a run directory (with transcripts.jsonl), a directory of them, or several of either separated by commas (their curves can be overlaid)')
    .option(...pluginOption)
    .option('--port <n>', `viewer port (0 picks a free one; default ${DEFAULT_VIEWER_PORT})`, parsePort)
    .option('--allow-origin <origin>', 'also accept WebSocket connections from pages of this origin (repeatable)', (v, all: string[]) => [...all, v], [])
    .action(async (opts: ServeOptions) => {
      const dirs = [];
      for (const root of opts.runs.split(',').filter((part) => part.trim() !== '')) dirs.push(...(await findRunDirs(root.trim())).map((dir) => ({ root: root.trim(), dir })));
      const { runs, tournaments } = await readableRuns(dirs);
      if (runs.length === 0) fail('FILE_NOT_FOUND', `${opts.runs}: none of its runs could be read (see the warnings above)`, { dir: opts.runs });
      checkDistinctIds(runs);
      const stopped = untilSignal();
      const server = await startViewer({ ...opts, watch: true });
      for (const run of runs) {
        const game = await gameOf(run, opts.plugin);
        const tournament = run.tournament && tournaments.get(run.tournament);
        server.hub.addRun(
          { id: run.id, game: run.game ?? 'unknown', status: 'recorded', view: spectatorView(game?.view ?? ownSecretsOnly), headline: game?.headline ?? DEFAULT_HEADLINE, ...(tournament ? { tournament: tournament.id } : {}) },
          { archive: run.archive, metrics: [...run.metrics, ...((tournament && run.game && tournament.metrics.get(run.game)) || [])] },
        );
        if (run.summary) server.hub.publish(run.id, { type: 'run-summary', summary: run.summary, seq: 0 });
      }
      for (const tournament of tournaments.values()) {
        const carrier = runs.find((run) => run.tournament === tournament.dir && run.game === tournament.first) ?? runs.find((run) => run.tournament === tournament.dir);
        for (const event of carrier ? tournament.events : []) server.hub.publish(carrier!.id, { ...event, seq: 0 } as LudusEvent);
      }
      server.hub.flush();
      process.stderr.write(`watch: ${server.url}\nreplaying ${runs.map((run) => `${run.id} (${run.archive.summaries().length} matches)`).join(', ')}; Ctrl-C to stop\n`);
      await Promise.race([stopped, new Promise<void>((resolve) => endWithNpx(resolve))]);
      await server.close();
    });
}

/** The run's game as it was built (from its config and plugins): its view hides in a replay what the live run hid. */
async function gameOf(run: RecordedRun, plugins: readonly string[]): Promise<Pick<Game, 'view' | 'headline'> | undefined> {
  if (!run.record) return undefined;
  const catalog = await composePlugins(await loadPluginFiles([...run.record.config.plugins, ...plugins]));
  return catalog.games.has(run.record.game) ? gameFor(catalog, run.record.config) : undefined;
}

/** A run is named by its directory's name in the viewer (and in match URLs): two runs of one name are refused. */
function checkDistinctIds(runs: readonly RecordedRun[]): void {
  const seen = new Map<string, string>();
  for (const run of runs) {
    const other = seen.get(run.id);
    if (other !== undefined) fail('INPUT_INVALID', `--runs: ${other} and ${run.dir} are both named "${run.id}"; runs shown together need distinct directory names`, { dir: run.dir });
    seen.set(run.id, run.dir);
  }
}

interface ServedRun extends RecordedRun {
  /** The directory of the tournament the run is a game of. */
  readonly tournament?: string;
  /** Its summary.json: the final figures of a training run that took all its steps. */
  readonly summary?: RunSummary;
}

/**
 * Every run that reads back, named by its path from the directory `--runs` gave (its own name when that is the run),
 * and the tournaments they are games of (a tournament's game is named `<tournament>/<game>`, as it was live); one that does not read back (a corrupt log, no tokenizer, no permission) is skipped with a warning.
 */
async function readableRuns(dirs: readonly { root: string; dir: string }[]): Promise<{ runs: ServedRun[]; tournaments: Map<string, RecordedTournament> }> {
  const runs: ServedRun[] = [];
  const tournaments = new Map<string, RecordedTournament>();
  for (const { root, dir } of dirs) {
    try {
      const tournamentDir = await tournamentDirOf(dir);
      if (tournamentDir !== undefined && !tournaments.has(tournamentDir)) tournaments.set(tournamentDir, await loadRecordedTournament(tournamentDir));
      const tournament = tournamentDir === undefined ? undefined : tournaments.get(tournamentDir);
      // A run found below the directory given is named by its path from there (runs/exp/grpo is "exp/grpo" beside "grpo").
      const id = tournament ? `${tournament.id}/${basename(dir)}` : resolve(dir) === resolve(root) ? basename(dir) : relative(root, dir);
      const run = await loadRecordedRun(dir, warnOnStderr, id);
      const summaryFile = join(dir, SUMMARY_FILE);
      const summary = (await pathExists(summaryFile)) ? (JSON.parse(await readFile(summaryFile, 'utf8')) as RunSummary) : undefined;
      runs.push({ ...run, ...(tournamentDir ? { tournament: tournamentDir } : {}), ...(summary ? { summary } : {}) });
    } catch (error) {
      if (typeof (error as { code?: unknown } | null)?.code !== 'string') throw error;
      warnOnStderr(`skipping ${dir}: ${(error as Error).message}`);
    }
  }
  return { runs, tournaments };
}
