import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pathExists } from '../../native/io/files.ts';
import { Spectator } from '../server/hub-clients.ts';
import { serveLudus } from '../server/page/browser.ts';
import { configFile, runLudus } from '../support/cli.ts';

const tiny = {
  entrants: [{ name: 'base' }, { name: 'learner', trainable: true }],
  games: [{ game: 'grpo' }],
  format: { kind: 'round-robin', cycles: 2 },
  problemsPerRound: 1,
  groupSize: 2,
  maxNewTokens: 32,
};

describe('ludus tournament', () => {
  describe('having a tiny round-robin and --no-watch', () => {
    it('should play it in the worker, write the standings and report them on stdout', async () => {
      const { dir, file } = await configFile(tiny, 'league.json');
      const out = join(dir, 'run');
      const result = await runLudus(['tournament', file, '--out', out, '--no-watch', '--threads', '1', '--seed', '4']);
      expect(result.stderr).not.toMatch(/\[[A-Z_]+\]/);
      expect(result.code).toBe(0);
      const reported = JSON.parse(result.stdout) as { rounds: number; standings: { entrant: string }[] };
      expect(reported.rounds).toBe(2);
      expect(reported.standings.map((s) => s.entrant).sort()).toEqual(['base', 'learner']);
      expect(result.stderr).toMatch(/round 2\/2/);
      expect(JSON.parse(await readFile(join(out, 'tournament.json'), 'utf8'))).toMatchObject({ seed: 4 });
      expect(await pathExists(join(out, 'standings.md'))).toBe(true);
    });
  });

  describe('having --watch (the default) on a free port', () => {
    it('should stream the matches and the leaderboard\'s rating changes to a spectator, then exit', async () => {
      const { dir, file } = await configFile(tiny, 'league.json');
      const served = await serveLudus(['tournament', file, '--out', join(dir, 'run'), '--port', '0', '--threads', '1']);
      const spectator = new Spectator(served.url.replace('http:', 'ws:') + 'ws');
      await spectator.opened;
      expect(await served.exited).toBe(0);
      await spectator.closed;
      const ratings = spectator.events.flatMap((event) => (event.type === 'rating-change' ? [event] : []));
      expect(ratings.map((event) => event.entrant).sort()).toEqual(['base', 'base', 'learner', 'learner']);
      expect(ratings.every((event) => event.run === 'run/grpo' && event.system.startsWith('openskill'))).toBe(true);
      expect(spectator.events.some((event) => event.type === 'match-start' && event.game === 'grpo')).toBe(true);
      expect(spectator.events.some((event) => event.type === 'train-step')).toBe(true);
      const tables = spectator.events.flatMap((event) => (event.type === 'payoff-table' ? [event] : []));
      expect(tables.map((event) => event.round)).toEqual([1, 2]);
      expect(tables.every((event) => event.run === 'run/grpo')).toBe(true);
      // Each rating change carries μ and σ; each round ends with the leaderboard; the run's end reaches the spectator.
      expect(ratings.every((event) => event.skill.after.sigma < event.skill.before.sigma)).toBe(true);
      const boards = spectator.events.flatMap((event) => (event.type === 'standings' ? [event] : []));
      expect(boards.map((event) => event.rows.map((row) => row.entrant).sort())).toEqual([['base', 'learner'], ['base', 'learner']]);
      expect(boards.at(-1)!.rows.every((row) => row.games === row.wins + row.draws + row.losses && row.ordinal === row.mu - 3 * row.sigma)).toBe(true);
      expect(spectator.events.filter((event) => event.type === 'run-status').map((event) => event.type === 'run-status' && event.status)).toEqual(['finished']);
    });
  });

  describe('having an entrant that does not exist', () => {
    it('should exit 2 with a coded error before any match', async () => {
      const { dir, file } = await configFile({ ...tiny, entrants: [{ name: 'base' }, { name: 'ghost', init: '/no/such/model' }] }, 'league.json');
      const result = await runLudus(['tournament', file, '--out', join(dir, 'run'), '--no-watch']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/\[POLICY_INVALID\] entrant "ghost"/);
      expect(await pathExists(join(dir, 'run', 'games'))).toBe(false);
    });
  });
});
