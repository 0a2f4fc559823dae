import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { composePlugins } from '../../cli/composition/compose.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { tournamentGames } from '../../lab/tournament/run-tournament.ts';
import { TournamentConfigSchema } from '../../lab/tournament/tournament-config.ts';

describe('the example tournaments', () => {
  for (const name of ['league', 'seniors-round-robin']) {
    it(`should parse ${name}.json and find its games in the catalog`, async () => {
      const file = new URL(`../../examples/tournaments/${name}.json`, import.meta.url);
      const config = parseConfig(TournamentConfigSchema, JSON.parse(await readFile(file, 'utf8')), name);
      const games = tournamentGames(config, await composePlugins());
      expect(games.map((g) => g.id).sort()).toEqual(['grpo', 'tandem']);
    });
  }
});
