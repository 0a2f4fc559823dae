import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composePlugins } from '../../composition/compose.ts';
import { loadPluginFiles } from '../../composition/plugin-files.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { runTournament, type TournamentResult, type TournamentRun } from '../../lab/tournament/run-tournament.ts';
import { TournamentConfigSchema, type TournamentConfig, type TournamentConfigInput } from '../../lab/tournament/tournament-config.ts';
import { writePerturbedCopies } from '../../lab/tournament/bench/perturbed-copies.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';

/** A tournament at a tiny scale: one problem a round, groups of 2, short responses. */
export const tinyTournament = (input: Omit<TournamentConfigInput, 'problemsPerRound' | 'groupSize' | 'maxNewTokens'> & Partial<TournamentConfigInput>): TournamentConfig =>
  parseConfig(TournamentConfigSchema, { problemsPerRound: 1, groupSize: 2, maxNewTokens: 40, ...input }, 'test tournament');

/** Runs a tournament in-process from the catalog, into a fresh directory unless `out` is given. */
export async function playTournament(config: TournamentConfig, options: Partial<Omit<TournamentRun, 'config' | 'catalog'>> = {}): Promise<{ out: string; result: TournamentResult }> {
  const catalog = await composePlugins(await loadPluginFiles(config.plugins));
  const out = options.out ?? (await mkdtemp(join(tmpdir(), 'ludus-tournament-')));
  const result = await runTournament({ threads: 1, ...options, out, config, catalog });
  return { out, result };
}

/** `count` distinct entrants: the shipped base with seeded noise on every weight. */
export async function baseCopies(count: number, seed = 11): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'ludus-entrants-'));
  return writePerturbedCopies(resolveModelDir('default'), dir, count, { seed, scale: 0.03, prefix: 'entrant-' });
}
