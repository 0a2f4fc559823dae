import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { composePlugins } from '../../composition/compose.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { tournamentGames } from '../../lab/tournament/run-tournament.ts';
import { TournamentConfigSchema } from '../../lab/tournament/tournament-config.ts';

const parseExample = async (name: string) =>
  parseConfig(TournamentConfigSchema, JSON.parse(await readFile(new URL(`../../examples/tournaments/${name}.json`, import.meta.url), 'utf8')), name);

describe('the example tournaments', () => {
  for (const [name, expected] of [['league', ['grpo']], ['seniors-round-robin', ['grpo', 'tandem']], ['agon-league', ['agon']], ['tictactoe-league', ['tictactoe']], ['tictactoe-snapshots', ['tictactoe']], ['endpoint-league', ['tictactoe']]] as const) {
    it(`should parse ${name}.json and find its games in the catalog`, async () => {
      const games = tournamentGames(await parseExample(name), await composePlugins());
      expect(games.map((g) => g.id).sort()).toEqual(expected);
    });
  }

  it('should make the Agon league of adapters on the one shipped base, some trainable', async () => {
    const { entrants } = await parseExample('agon-league');
    const adapters = entrants.filter((e) => e.adapter);
    expect(adapters.length).toBeGreaterThanOrEqual(3);
    expect(new Set(adapters.map((e) => e.init))).toEqual(new Set(['default']));
    expect(adapters.filter((e) => e.trainable).length).toBeGreaterThanOrEqual(2);
  });
});
