import { basename, dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import type { LudusEmitter, LudusEvent } from '../../core/events.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { tournamentGames } from '../../lab/tournament/run-tournament.ts';
import { siblingModule } from '../../native/io/package-root.ts';
import { WorkerRpc } from '../../native/worker/worker-rpc.ts';
import { TournamentConfigSchema } from '../../lab/tournament/tournament-config.ts';
import { liveRun } from '../../server/live-run.ts';
import { spectatorView } from '../../server/spectator-view.ts';
import { composePlugins } from '../../composition/compose.ts';
import { loadPluginFiles } from '../../composition/plugin-files.ts';
import { readConfigFile } from '../config-file.ts';
import { restartOption, resumeMode } from '../options.ts';
import { pluginOption } from '../run-config.ts';
import type { Standing } from '../../lab/tournament/standings.ts';
import type { TournamentMethods, WorkerTournamentSpec } from '../training/tournament-worker.ts';
import { closeViewer, startViewer, watchOptions, type WatchOptions } from '../watch.ts';

interface TournamentOptions extends WatchOptions {
  out?: string;
  resume?: boolean;
  restart?: boolean;
  plugin: string[];
  seed?: number;
  threads: number;
}

export function register(program: Command): void {
  const command = program
    .command('tournament')
    .description('a tournament of entrants (checkpoints, the shipped base, trainable learners and their snapshots) over one or more games: round-robin, Swiss, a PFSP league or fixtures (the same listed pairings every round: an evaluation); openskill and Bradley–Terry ratings; trainable entrants learn between rounds; resumable')
    .argument('<config>', 'JSON tournament config (every field in docs/config-reference.md; the guide is docs/tournaments.md)')
    .option('--out <dir>', 'tournament directory (default: runs/<config name>)')
    .option('--resume', 'continue from <out>/state (without it, <out> must be new or empty)')
    .addOption(restartOption())
    .option(...pluginOption)
    .option('--seed <n>', 'tournament seed: the same seed plays the same matches', (v) => Number(v))
    .option('--threads <n>', 'intra-op threads', (v) => Number(v), 0);
  watchOptions(command, 'the matches and the leaderboard').action(async (file: string, opts: TournamentOptions) => {
    const raw = await readConfigFile(file);
    const plugins = [...(Array.isArray(raw.plugins) ? (raw.plugins as unknown[]).map((p) => (typeof p === 'string' ? resolve(dirname(file), p) : p)) : []), ...opts.plugin.map((p) => resolve(p))];
    const config = parseConfig(TournamentConfigSchema, { ...raw, plugins, ...(opts.seed !== undefined ? { seed: opts.seed } : {}) }, file);
    const catalog = await composePlugins(await loadPluginFiles(config.plugins));
    const games = tournamentGames(config, catalog);
    const out = opts.out ?? `runs/${basename(file).replace(/\.json$/, '')}`;
    const id = basename(resolve(out));
    const server = opts.watch ? await startViewer(opts) : undefined;
    const events: Record<string, LudusEmitter> = {};
    for (const { id: game, game: built } of games) {
      if (server) events[game] = liveRun(server.hub, { id: `${id}/${game}`, game, status: 'running', view: spectatorView(built.view), headline: built.headline, tournament: id });
    }
    if (server) process.stderr.write(`watch: ${server.url}\n`);
    const rpc = await WorkerRpc.spawn<TournamentMethods>(siblingModule(import.meta.url, '../training/tournament-worker'), { label: 'tournament worker' });
    let finished = false;
    try {
      const spec: WorkerTournamentSpec = { out, config, resume: resumeMode(opts), threads: opts.threads, live: Object.keys(events) };
      const result = await rpc.call('tournament', [spec], {
        onEvent: (message) => {
          if (message.kind === 'events') {
            const emitter = events[message.game];
            for (const event of message.events) {
              (emitter.emit as (type: string, event: LudusEvent) => boolean)(event.type, event);
              emitter.emit('event', event);
            }
            return;
          }
          process.stderr.write(roundLine(message.round, message.rounds, message.standings));
        },
      });
      process.stdout.write(`${JSON.stringify({ out, rounds: result.rounds, standings: result.standings.map((s) => ({ rank: s.rank, entrant: s.entrant, ordinal: s.overall.ordinal, elo: s.overall.elo })) })}\n`);
      finished = true;
    } finally {
      await rpc.terminate();
      if (server) await closeViewer(server, Object.keys(events).map((game) => `${id}/${game}`), finished ? 'finished' : 'stopped');
    }
  });
}

/**
 * One line per round, every number labelled: the top three by conservative rating with their records and mean scores;
 * and when every match so far was drawn, why the ratings cannot separate anyone yet.
 */
export function roundLine(round: number, rounds: number, standings: readonly Standing[]): string {
  const top = standings
    .slice(0, 3)
    .map((s) => `${s.rank}. ${s.entrant} rating ${s.overall.ordinal.toFixed(2)} (won ${fmt(s.record.wins)}, drawn ${fmt(s.record.draws)}, lost ${fmt(s.record.losses)}; mean score ${s.score === null ? 'none yet' : s.score.toFixed(3)})`);
  const lines = [`round ${round}/${rounds}, top ${top.length} by rating (openskill μ − 3σ): ${top.join('; ')}`];
  const decided = standings.some((s) => s.record.wins > 0 || s.record.losses > 0);
  if (!decided && standings.some((s) => s.record.draws > 0)) {
    lines.push(
      '  every match so far is a draw: in each pairing both sides scored the same (both solved, or both missed, every problem), so the ratings cannot tell the entrants apart yet (μ stays put; σ shrinks with every game, so μ − 3σ rises for all alike). Entrants that differ more, harder problems or more problems per round separate them.',
    );
  }
  return `${lines.join('\n')}\n`;
}

const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));
