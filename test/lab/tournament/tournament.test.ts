import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TranscriptLine } from '../../../engine/trainer/transcript-line.ts';
import type { RatingsLine, Standing } from '../../../lab/tournament/standings.ts';
import type { UpdateRecord } from '../../../lab/tournament/train-round.ts';
import { loadRecordedRun } from '../../../server/run-replay.ts';
import { jsonl } from '../../support/training.ts';
import { baseCopies, playTournament, tinyTournament } from '../../support/tournament.ts';

let copies: string[];
beforeAll(async () => {
  copies = await baseCopies(3);
});

const readJson = async <T>(path: string) => JSON.parse(await readFile(path, 'utf8')) as T;

describe('a round-robin of three frozen entrants on a solo game', () => {
  let out: string;
  let loadedPeak: number;
  beforeAll(async () => {
    const config = tinyTournament({
      entrants: copies.map((init, i) => ({ name: `e${i}`, init })),
      games: [{ game: 'grpo' }],
      format: { kind: 'round-robin', cycles: 2 },
      problemsPerRound: 2,
      maxLoaded: 2,
    });
    let result;
    ({ out, result } = await playTournament(config));
    loadedPeak = result.loadedPeak;
  });

  it('should hold at most maxLoaded entrants in memory at once', () => {
    expect(loadedPeak).toBe(2);
  });

  it('should play every entrant on the same problems from the same seeds each round (duplicate play)', async () => {
    const lines = await jsonl<TranscriptLine & { lineup: string }>(join(out, 'games', 'grpo', 'transcripts.jsonl'));
    expect(lines).toHaveLength(2 * 3 * 2 * 2);
    for (const step of [1, 2]) {
      const round = lines.filter((line) => line.step === step);
      expect(new Set(round.map((line) => line.lineup))).toEqual(new Set(['senior=e0', 'senior=e1', 'senior=e2']));
      const byIndex = (lineup: string) => round.filter((line) => line.lineup === lineup).map((line) => [line.problemId, line.seed, line.turns[0].seed]);
      expect(byIndex('senior=e1')).toEqual(byIndex('senior=e0'));
      expect(byIndex('senior=e2')).toEqual(byIndex('senior=e0'));
    }
  });

  it('should rate every pair on every match: a payoff of 4 games a pair a round, standings by μ − 3σ', async () => {
    const payoff = await readJson<{ overall: Record<string, Record<string, { wins: number; draws: number; losses: number }>> }>(join(out, 'payoff.json'));
    for (const [a, b] of [['e0', 'e1'], ['e0', 'e2'], ['e1', 'e2']]) {
      const h = payoff.overall[a][b];
      expect(h.wins + h.draws + h.losses).toBe(8);
      expect(payoff.overall[b][a]).toEqual({ wins: h.losses, draws: h.draws, losses: h.wins });
    }
    const { standings } = await readJson<{ standings: Standing[] }>(join(out, 'standings.json'));
    expect(standings.map((s) => s.rank)).toEqual([1, 2, 3]);
    for (let i = 1; i < standings.length; i++) expect(standings[i - 1].overall.ordinal).toBeGreaterThanOrEqual(standings[i].overall.ordinal);
    expect(standings.reduce((sum, s) => sum + s.overall.bt.theta, 0)).toBeCloseTo(0, 9);
    const lines = await jsonl<TranscriptLine>(join(out, 'games', 'grpo', 'transcripts.jsonl'));
    for (const s of standings) {
      const mine = lines.filter((line) => line.seats.senior === s.entrant);
      expect(s.score).toBeCloseTo(mine.reduce((sum, line) => sum + line.outcome.senior, 0) / mine.length, 12);
      expect(s.gameScores.grpo).toBe(s.score);
    }
    expect(await readFile(join(out, 'standings.md'), 'utf8')).toContain('| 1 | ');
    expect(await readFile(join(out, 'payoff.md'), 'utf8')).toContain('## grpo');
  });

  it('should keep rating trajectories and draw them with bands, as SVG and PNG', async () => {
    const ratings = await jsonl<RatingsLine>(join(out, 'ratings.jsonl'));
    expect(ratings.map((line) => line.step)).toEqual([1, 2]);
    expect(ratings[1].overall.e0.sigma).toBeLessThan(ratings[0].overall.e0.sigma);
    const plots = (await readdir(join(out, 'plots'))).sort();
    expect(plots).toEqual(expect.arrayContaining(['openskill-overall.svg', 'openskill-overall.png', 'bradley-terry-grpo.svg', 'bradley-terry-grpo.png']));
    const svg = await readFile(join(out, 'plots', 'openskill-overall.svg'), 'utf8');
    expect(svg.match(/class="band"/g)).toHaveLength(3);
    expect((await stat(join(out, 'plots', 'openskill-overall.png'))).size).toBeGreaterThan(1000);
  });

  it("should leave each game's matches where `ludus serve` replays them", async () => {
    const run = await loadRecordedRun(join(out, 'games', 'grpo'));
    expect(run.game).toBe('grpo');
    const [summary] = run.archive.summaries();
    const events = run.archive.events(summary.matchId)!;
    expect(events[0]).toMatchObject({ type: 'match-start', game: 'grpo' });
    expect(events.at(-1)?.type).toBe('match-end');
  });
});

describe('a league with a trainable entrant', () => {
  const config = () =>
    tinyTournament({
      entrants: [
        { name: 'learner', init: copies[0], trainable: true, snapshotEvery: 1, schedule: { lr: 3e-4 } },
        { name: 'rival', init: copies[1] },
        { name: 'base', init: 'default' },
      ],
      games: [{ game: 'grpo' }, { game: 'tandem', swapSeats: false }],
      format: { kind: 'league', rounds: 3, opponents: 1 },
      groupSize: 4,
    });

  describe('having run straight, or stopped in the middle of round 2 and resumed', () => {
    let straight: string;
    let split: string;
    beforeAll(async () => {
      ({ out: straight } = await playTournament(config()));
      // Round 1 plays 2 grpo lineups and 1 tandem lineup: stop after the first lineup of round 2.
      const partial = await playTournament(config(), { stopAfterLineups: 4 });
      expect(partial.result.finished).toBe(false);
      expect(partial.result.rounds).toBe(1);
      split = partial.out;
      await playTournament(config(), { out: split, resume: true });
      // Three tournaments of three rounds in one hook: its own limit, as a test with as much work has.
    }, 300_000);

    it('should end with the same standings, ratings, updates and transcripts', async () => {
      for (const file of ['standings.json', 'payoff.json', 'ratings.jsonl', 'updates.jsonl', join('games', 'grpo', 'transcripts.jsonl'), join('games', 'tandem', 'transcripts.jsonl')]) {
        expect(await readFile(join(split, file), 'utf8'), file).toBe(await readFile(join(straight, file), 'utf8'));
      }
    });

    it("should end with the same weights and AdamW moments of the learner", async () => {
      for (const file of ['model.safetensors', 'optimizer.safetensors']) {
        const path = (out: string) => join(out, 'state', 'policies', 'learner', file);
        expect((await readFile(path(split))).equals(await readFile(path(straight)))).toBe(true);
      }
    });

    it('should record which opponents each update came from, and add snapshots of the learner to the pool', async () => {
      const updates = await jsonl<UpdateRecord>(join(straight, 'updates.jsonl'));
      expect(updates.length).toBeGreaterThanOrEqual(3);
      for (const update of updates) {
        expect(update.entrant).toBe('learner');
        expect(update.opponents.length).toBeGreaterThan(0);
        expect(update.opponents).not.toContain('learner');
        if (update.game === 'tandem') expect(update.seats.senior).toBe('learner');
      }
      const { standings } = await readJson<{ standings: Standing[] }>(join(straight, 'standings.json'));
      expect(standings.map((s) => s.entrant).sort()).toEqual(['base', 'learner', 'learner@1', 'learner@2', 'rival']);
      expect(standings.find((s) => s.entrant === 'learner@1')?.snapshotOf).toBe('learner');
    });
  });
});
