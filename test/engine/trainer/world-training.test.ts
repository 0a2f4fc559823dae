import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { MetricsLine } from '../../../engine/trainer/metrics-line.ts';
import { jsonl, runTraining, tinyConfig } from '../../support/training.ts';

/** Self-play TicTacToe on the shipped world base, two deals × a group of 2 a step, RAE as the estimator. */
const selfPlay = (steps: number) => tinyConfig({ game: 'tictactoe', task: 'world', advantage: 'rae', steps, problemsPerStep: 2, groupSize: 2, checkpointEvery: 2, microBatchRows: 32 });

describe('world-game training (self-play)', () => {
  it('should train one policy on both seats, each seat with its own RAE baseline, and report wins, losses and illegal moves', async () => {
    const { out } = await runTraining(selfPlay(1));
    const [line] = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
    expect(line.seats).toEqual({ first: 'player', second: 'player' });
    expect(line.trains).toEqual(['player']);
    for (const role of ['first', 'second']) {
      for (const key of ['win', 'draw', 'loss', 'illegal', 'forfeit', 'rae_baseline']) expect(line.roles[role][key]).toEqual(expect.any(Number));
    }
    expect(line.roles.first.win! + line.roles.first.draw! + line.roles.first.loss!).toBeCloseTo(1, 12);
    expect(line.roles.first.rae_baseline).not.toBe(line.roles.second.rae_baseline);
    expect(line.policies.player.loss).toEqual(expect.any(Number));
  }, 300_000);

  describe('having a seat that takes no turn in a whole step (the other forfeits every match at once)', () => {
    it('should train on the seat that moved and report the other with no turns, not stop the run', async () => {
      const plugin = fileURLToPath(new URL('../../support/plugins/first-forfeits.ts', import.meta.url));
      const { out } = await runTraining({ ...selfPlay(1), game: 'first-forfeits', plugins: [plugin] });
      const [line] = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
      expect(line.roles.first.forfeit).toBe(1);
      expect(line.roles.second.turns).toBe(0);
      expect(line.policies.player.loss).toEqual(expect.any(Number));
    }, 300_000);
  });

  describe('having evalEvery set', () => {
    it('should play the fixed opponents (random, minimax, the base) at those steps into metrics.jsonl, and keep best/ by their mean score', async () => {
      const { out, result } = await runTraining({ ...selfPlay(2), validateEvery: 0, evalEvery: 2, evalMatches: 4 });
      const lines = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
      expect(lines[0].eval).toBeUndefined();
      expect(Object.keys(lines[1].eval ?? {})).toEqual(['random', 'minimax', 'base']);
      for (const r of Object.values(lines[1].eval!)) {
        expect(r.matches).toBe(4);
        expect(r.win + r.draw + r.loss).toBeCloseTo(1, 12);
        expect(r.score).toBeCloseTo(r.win + r.draw / 2, 12);
      }
      expect(lines[1].eval!.minimax.win).toBe(0);
      expect(result.best).toMatchObject({ step: 2, split: 'eval' });
      await expect(readFile(join(out, 'best', 'player', 'model.safetensors'))).resolves.toBeDefined();
    }, 300_000);
  });

  describe('having run N steps straight, or N/2, stopped, and resumed for N/2', () => {
    it('should end with the same weights, optimizer moments, RAE baselines and metrics', async () => {
      const config = { ...selfPlay(2), checkpointEvery: 1 };
      const straight = await runTraining(config);
      const split = await runTraining(config, { stopAfter: 1 });
      await runTraining(config, { out: split.out, resume: true });
      for (const file of ['model.safetensors', 'optimizer.safetensors']) {
        const [a, b] = [split.out, straight.out].map((out) => readFile(join(out, 'checkpoint', 'policies', 'player', file)));
        expect((await a).equals(await b)).toBe(true);
      }
      const withoutTime = (lines: MetricsLine[]) => lines.map(({ seconds: _seconds, ...rest }) => rest);
      expect(withoutTime(await jsonl(join(split.out, 'metrics.jsonl')))).toEqual(withoutTime(await jsonl(join(straight.out, 'metrics.jsonl'))));
    }, 600_000);
  });
});
