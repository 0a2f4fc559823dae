import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveRun } from '../../cli/run-config.ts';
import { DEFAULT_MODELS_DIR } from '../../plugins/policies/default-model.ts';

const configFile = async (config: object) => {
  const file = join(await mkdtemp(join(tmpdir(), 'ludus-run-config-')), 'config.json');
  await writeFile(file, JSON.stringify(config));
  return file;
};

describe('resolveRun', () => {
  describe('having a game with a default model and no model or task in the config', () => {
    it.each(['tango', 'agon'])('should start %s from that shipped base, on its task with that task\'s grader (arithmetic-judge: arithmetic, math)', async (game) => {
      const { config } = await resolveRun(game, { plugin: [] });
      expect([config.model, config.task, config.grader]).toEqual([join(DEFAULT_MODELS_DIR, 'arithmetic-judge'), 'arithmetic', 'math']);
      expect((await resolveRun(game, { plugin: [], model: 'default' })).config.model).toBe(join(DEFAULT_MODELS_DIR, 'arithmetic-judge'));
    });

    it('should keep a model or another task the run names (no base of another task under it)', async () => {
      expect((await resolveRun('tango', { plugin: [], model: 'models/last-letter' })).config).toMatchObject({ model: 'models/last-letter', task: 'last-letter', grader: 'exact' });
      expect((await resolveRun('tango', { plugin: [], config: await configFile({ task: 'last-letter' }) })).config).toMatchObject({ model: 'default', task: 'last-letter' });
    });
  });

  describe('having a game without one', () => {
    it('should keep the config\'s defaults', async () => {
      const { config } = await resolveRun('tandem', { plugin: [] });
      expect([config.task, config.grader]).toEqual(['arithmetic', 'math']);
    });
  });

  describe('having a world game', () => {
    it("should take the world games' run defaults (RAE, lr 3e-4 as measured), the config's own fields winning", async () => {
      expect((await resolveRun('tictactoe', { plugin: [] })).config).toMatchObject({ advantage: 'rae', task: 'world', schedule: { lr: 3e-4 }, problemsPerStep: 16, groupSize: 4 });
      expect((await resolveRun('kuhn-poker', { plugin: [], config: await configFile({ schedule: { lr: 1e-3 } }) })).config.schedule.lr).toBe(1e-3);
    });
  });

  describe('having a task or a grader in the config', () => {
    it('should keep what the config says over any default', async () => {
      expect((await resolveRun('tango', { plugin: [], config: await configFile({ task: 'arithmetic' }) })).config).toMatchObject({ task: 'arithmetic', grader: 'math' });
      expect((await resolveRun('tango', { plugin: [], config: await configFile({ grader: 'exact' }) })).config).toMatchObject({ task: 'arithmetic', grader: 'exact' });
      expect((await resolveRun('tandem', { plugin: [], config: await configFile({ task: 'last-letter' }) })).config).toMatchObject({ task: 'last-letter', grader: 'exact' });
    });
  });
});
