import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveRun } from '../../cli/run-config.ts';

const configFile = async (config: object) => {
  const file = join(await mkdtemp(join(tmpdir(), 'ludus-run-config-')), 'config.json');
  await writeFile(file, JSON.stringify(config));
  return file;
};

describe('resolveRun', () => {
  describe('having a game with a default task and no task in the config', () => {
    it('should play the game\'s task with that task\'s grader (Tango: last-letter, graded exactly)', async () => {
      const { config } = await resolveRun('tango', { plugin: [] });
      expect([config.task, config.grader]).toEqual(['last-letter', 'exact']);
    });
  });

  describe('having a game without one', () => {
    it('should keep the config\'s defaults', async () => {
      const { config } = await resolveRun('tandem', { plugin: [] });
      expect([config.task, config.grader]).toEqual(['arithmetic', 'math']);
    });
  });

  describe('having a task or a grader in the config', () => {
    it('should keep what the config says over any default', async () => {
      expect((await resolveRun('tango', { plugin: [], config: await configFile({ task: 'arithmetic' }) })).config).toMatchObject({ task: 'arithmetic', grader: 'math' });
      expect((await resolveRun('tango', { plugin: [], config: await configFile({ grader: 'math' }) })).config).toMatchObject({ task: 'last-letter', grader: 'math' });
      expect((await resolveRun('tandem', { plugin: [], config: await configFile({ task: 'last-letter' }) })).config).toMatchObject({ task: 'last-letter', grader: 'exact' });
    });
  });
});
