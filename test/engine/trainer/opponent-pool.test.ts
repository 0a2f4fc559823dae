import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Game } from '../../../core/game/define-game.ts';
import type { MetricsLine } from '../../../engine/trainer/metrics-line.ts';
import { drawOpponent, opponentProbabilities, poolSeats, recordPoolResults, type OpponentPoolState } from '../../../engine/trainer/opponent-pool.ts';
import { OpponentPoolSchema } from '../../../engine/trainer/train-config.ts';
import type { PlayedMatch } from '../../../engine/match/played-match.ts';
import type { TrainerState } from '../../../engine/trainer/trainer-state.ts';
import { jsonl, runTraining, tinyConfig } from '../../support/training.ts';

const settings = (overrides: Record<string, unknown> = {}) => OpponentPoolSchema.parse({ snapshotEvery: 2, ...overrides });
const twoSeats = { id: 'tictactoe', roles: ['first', 'second'] } as unknown as Game;
const played = (first: number, second: number) => ({ rewards: { outcome: { first, second } } }) as unknown as PlayedMatch;

describe('the opponent pool', () => {
  it('should seat the learner first at even steps and second at odd ones, the opponent in the other seat, and train the learner only', () => {
    expect(poolSeats(twoSeats, 'player', 'player@0', 0)).toEqual({ seats: { first: 'player', second: 'player@0' }, trains: ['player'] });
    expect(poolSeats(twoSeats, 'player', 'player@4', 5)).toEqual({ seats: { first: 'player@4', second: 'player' }, trains: ['player'] });
  });

  it("should record the learner's wins, draws and losses from its seat's outcome", () => {
    const pool: OpponentPoolState = { opponents: ['player@0'], payoff: {} };
    recordPoolResults(pool, [played(1, -1), played(0, 0), played(-1.5, 0.5)], { first: 'player', second: 'player@0' }, 'player');
    recordPoolResults(pool, [played(1, -1)], { first: 'player@0', second: 'player' }, 'player');
    expect(pool.payoff.player['player@0']).toEqual({ wins: 1, draws: 1, losses: 2 });
  });

  describe('PFSP on hand-computed cases', () => {
    // Against A: 3 wins, 1 loss, smoothed by one game split evenly: x = 3.5/5 = 0.7; against B, never met: x = 0.5.
    const pool: OpponentPoolState = { opponents: ['A', 'B'], payoff: { player: { A: { wins: 3, draws: 0, losses: 1 } } } };
    it('should weigh hard as (1 − x)^2: 0.09 and 0.25', () => {
      const [a, b] = opponentProbabilities(pool, settings(), 'player');
      expect(a).toBeCloseTo(0.09 / 0.34, 12);
      expect(b).toBeCloseTo(0.25 / 0.34, 12);
    });
    it('should weigh variance as x(1 − x): 0.21 and 0.25; hard with p = 1 as 0.3 and 0.5; uniform evenly', () => {
      expect(opponentProbabilities(pool, settings({ weighting: 'variance' }), 'player')[0]).toBeCloseTo(0.21 / 0.46, 12);
      expect(opponentProbabilities(pool, settings({ hardExponent: 1 }), 'player')[0]).toBeCloseTo(0.3 / 0.8, 12);
      expect(opponentProbabilities(pool, settings({ weighting: 'uniform' }), 'player')).toEqual([0.5, 0.5]);
    });
    it('should draw the opponents at those rates, the same opponent for the same (seed, step)', () => {
      const draws = Array.from({ length: 4000 }, (_, step) => drawOpponent(pool, settings(), 'player', 0, step));
      expect(draws.filter((d) => d === 'A').length / draws.length).toBeCloseTo(0.09 / 0.34, 1);
      expect(drawOpponent(pool, settings(), 'player', 0, 17)).toBe(draws[17]);
    });
  });
});

/** Self-play TicTacToe on the shipped world base against a pool that gains a snapshot every 2 steps. */
const pooled = (steps: number) => tinyConfig({ game: 'tictactoe', task: 'world', advantage: 'rae', steps, problemsPerStep: 2, groupSize: 2, checkpointEvery: 1, microBatchRows: 32, opponentPool: { snapshotEvery: 2 } });
const stateOf = async (out: string) => JSON.parse(await readFile(join(out, 'checkpoint', 'trainer_state.json'), 'utf8')) as TrainerState;

describe('training against an opponent pool', () => {
  it('should grow the pool on schedule and draw each step\'s opponent from the snapshots taken so far', async () => {
    const { out } = await runTraining(pooled(5));
    const state = await stateOf(out);
    expect(state.pool!.opponents).toEqual(['player@0', 'player@2', 'player@4']);
    const lines = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
    lines.forEach((line, step) => {
      const opponent = step % 2 === 0 ? line.seats.second : line.seats.first;
      expect(step % 2 === 0 ? line.seats.first : line.seats.second).toBe('player');
      expect(['player@0', 'player@2', 'player@4'].slice(0, Math.floor(step / 2) + 1)).toContain(opponent);
      expect(line.trains).toEqual(['player']);
    });
    const games = Object.values(state.pool!.payoff.player).reduce((n, h) => n + h.wins + h.draws + h.losses, 0);
    expect(games).toBe(5 * 2 * 2);
    const snapshot = await readFile(join(out, 'snapshots', 'player@4', 'model.safetensors'));
    expect(snapshot.equals(await readFile(join(out, 'checkpoint', 'policies', 'player', 'model.safetensors')))).toBe(false);
  }, 600_000);

  describe('having run N steps straight, or stopped after a snapshot and resumed', () => {
    it('should end with the same weights, moments, pool, results and metrics', async () => {
      const config = pooled(5);
      const straight = await runTraining(config);
      const split = await runTraining(config, { stopAfter: 3 });
      await runTraining(config, { out: split.out, resume: true });
      for (const file of ['model.safetensors', 'optimizer.safetensors']) {
        const [a, b] = [split.out, straight.out].map((out) => readFile(join(out, 'checkpoint', 'policies', 'player', file)));
        expect((await a).equals(await b)).toBe(true);
      }
      const [a, b] = [await stateOf(split.out), await stateOf(straight.out)];
      expect(a.pool).toEqual(b.pool);
      expect(a.estimators).toEqual(b.estimators);
      const withoutTime = (lines: MetricsLine[]) => lines.map(({ seconds: _seconds, ...rest }) => rest);
      expect(withoutTime(await jsonl(join(split.out, 'metrics.jsonl')))).toEqual(withoutTime(await jsonl(join(straight.out, 'metrics.jsonl'))));
    }, 900_000);
  });

  it('should refuse a game that is not self-play, naming the field', async () => {
    await expect(runTraining({ ...pooled(1), knobs: { play: 'two-policy' } })).rejects.toThrow(/opponentPool: game "tictactoe" does not seat one policy in every seat/);
  }, 60_000);
});
