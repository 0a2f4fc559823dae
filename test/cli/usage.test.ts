import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { saveCheckpoint } from '../../native/io/checkpoint.ts';
import { randomModel } from '../support/models.ts';
import { runLudus } from '../support/cli.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ludus-usage-'));
});

/** A refused command: exit status 2, one coded line on stderr, and nothing written into `dir`. */
async function expectRefused(args: string[], expected: string): Promise<{ stderr: string }> {
  const before = await readdir(dir);
  const result = await runLudus(args);
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toContain(expected);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(await readdir(dir)).toEqual(before);
  return result;
}

describe('ludus usage', () => {
  describe('having --version', () => {
    it("should print the package's version", async () => {
      const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
      const result = await runLudus(['--version']);
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe(version);
    });
  });

  describe('having a usage error (a missing argument, an unknown option or command)', () => {
    it('should exit 2 with the one-line error and where to read the usage, not the whole help', async () => {
      for (const [args, error, pointer] of [
        [['train'], "error: missing required argument 'game'", "(see 'ludus train --help' for usage)"],
        [['bench', 'engine', '--bogus'], "error: unknown option '--bogus'", "(see 'ludus bench engine --help' for usage)"],
      ]) {
        const result = await runLudus(args as string[]);
        expect(result.code).toBe(2);
        expect(result.stderr.trim().split('\n')).toEqual([error, pointer]);
      }
    });
  });

  describe('having a port that is not one', () => {
    it('should exit 2 with INPUT_INVALID naming --port, before anything is written', async () => {
      const out = join(dir, 'run');
      await expectRefused(['train', 'tandem', '--port', '99999', '--out', out], '[INPUT_INVALID] --port "99999" is not a port');
    });
  });

  describe('having more threads than cores', () => {
    it('should exit 2 with INPUT_INVALID saying how many cores there are and how to force it', async () => {
      const cores = availableParallelism();
      await expectRefused(['train', 'tandem', '--threads', '1000', '--out', join(dir, 'run'), '--no-watch'], `[INPUT_INVALID] --threads 1000 is more than this machine's ${cores} cores`);
    });
  });

  describe('having a directory passed as --config', () => {
    it('should exit 2 with INPUT_INVALID naming it', async () => {
      await expectRefused(['train', 'tandem', '--config', dir, '--out', join(dir, 'run'), '--no-watch'], `[INPUT_INVALID] ${dir}: is a directory; --config takes a JSON file`);
    });
  });

  describe('having a directory where model.safetensors should be', () => {
    it('should exit 2 with SAFETENSORS_MALFORMED naming it', async () => {
      const model = join(await mkdtemp(join(tmpdir(), 'ludus-usage-model-')), 'model');
      const { config, weights } = randomModel();
      await saveCheckpoint(model, config, weights);
      await rm(join(model, 'model.safetensors'));
      await mkdir(join(model, 'model.safetensors'));
      await expectRefused(['score', '--model', model, '--tokens', '1,2'], `[SAFETENSORS_MALFORMED] ${join(model, 'model.safetensors')}: not a file`);
    });
  });

  describe('having --model default, and more threads than cores with --force-threads', () => {
    it('should score with the shipped base', async () => {
      const result = await runLudus(['score', '--model', 'default', '--tokens', '1,2,3', '--threads', String(availableParallelism() + 1), '--force-threads', '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect((JSON.parse(result.stdout) as { logprobs: unknown[] }).logprobs).toHaveLength(3);
    });
  });

  describe('having a misspelt task', () => {
    it('should blame the task, not the model', async () => {
      await expectRefused(['eval', '--model', 'default', '--task', 'arithmetc'], '[CONFIG_INVALID] unknown task "arithmetc"');
    });
  });

  describe('having a training config with a nested typo', () => {
    it('should exit 2 naming the field and the one it most likely meant', async () => {
      const config = join(await mkdtemp(join(tmpdir(), 'ludus-usage-config-')), 'typo.json');
      await writeFile(config, JSON.stringify({ schedule: { lr: 1e-5, warmup: 5 } }));
      await expectRefused(['train', 'tandem', '--config', config, '--out', join(dir, 'run'), '--no-watch'], `[CONFIG_INVALID] ${config}: unknown field "schedule.warmup" (did you mean "schedule.warmupSteps"?)`);
    });
  });

  describe('having a game that is not in the catalog', () => {
    it('should suggest the game a typo most likely meant', async () => {
      await expectRefused(['train', 'tandm', '--out', join(dir, 'run'), '--no-watch'], '[CONFIG_INVALID] no game "tandm" (did you mean "tandem"? known: tandem, grpo');
    });

    it("should name the --plugin that adds one of ludus's example games", async () => {
      const { stderr } = await expectRefused(['train', 'nim', '--out', join(dir, 'run'), '--no-watch'], '[CONFIG_INVALID] no game "nim" ("nim" is an example game, not a built-in: add --plugin ');
      const plugin = /add --plugin (\S+);/.exec(stderr)![1]!;
      expect(plugin.endsWith(join('examples', 'nim', 'nim.ts'))).toBe(true);
    });
  });

  describe('having a training config field of the wrong type', () => {
    it('should say the field, what was given and what it expects, not the validation library\'s words', async () => {
      const config = join(await mkdtemp(join(tmpdir(), 'ludus-usage-type-')), 'steps.json');
      await writeFile(config, JSON.stringify({ steps: 'ten' }));
      const { stderr } = await expectRefused(['train', 'tandem', '--config', config, '--out', join(dir, 'run'), '--no-watch'], `[CONFIG_INVALID] ${config}: field "steps": given "ten" (a string), expected a number`);
      expect(stderr).not.toMatch(/Invalid input|received/);
    });
  });

  describe('having an --out that is a file', () => {
    it('should refuse it with INPUT_INVALID for train and tournament, not a raw mkdir error from the worker', async () => {
      const file = join(await mkdtemp(join(tmpdir(), 'ludus-usage-file-')), 'not-a-dir');
      await writeFile(file, 'x');
      const league = join(await mkdtemp(join(tmpdir(), 'ludus-usage-league-')), 'league.json');
      await writeFile(league, JSON.stringify({ entrants: [{ name: 'base' }, { name: 'other' }], games: [{ game: 'grpo' }], format: { kind: 'round-robin', cycles: 1 }, problemsPerRound: 1, groupSize: 2 }));
      for (const args of [['train', 'grpo', '--steps', '1', '--out', file, '--no-watch'], ['tournament', league, '--out', file, '--no-watch']]) {
        const { stderr } = await expectRefused(args, `[INPUT_INVALID] ${file}: is a file (or lies under one), not a directory for this`);
        expect(stderr).not.toMatch(/WORKER_FAILED|EEXIST/);
      }
      expect(await readFile(file, 'utf8')).toBe('x');
    });
  });

  describe('having a training config whose sizes cannot be meant', () => {
    it('should exit 2 naming the field and its bound, before anything is allocated or written', async () => {
      const configDir = await mkdtemp(join(tmpdir(), 'ludus-usage-sizes-'));
      for (const [fields, expected] of [
        [{ groupSize: 100000 }, 'groupSize'],
        [{ validationProblems: 1e9 }, 'validationProblems'],
        [{ problemsPerStep: 512, groupSize: 16 }, 'problemsPerStep × groupSize'],
      ] as const) {
        const config = join(configDir, `${expected.replace(/\W/g, '')}.json`);
        await writeFile(config, JSON.stringify(fields));
        const { stderr } = await expectRefused(['train', 'grpo', '--config', config, '--out', join(dir, 'run'), '--no-watch'], '[CONFIG_INVALID]');
        expect(stderr).toContain(expected);
      }
    });
  });

  describe('having eval without --task', () => {
    it('should evaluate on the task the model was pretrained on (its pretrain_config.json)', async () => {
      const result = await runLudus(['eval', '--model', 'models/arithmetic', '--problems', '1', '--samples', '1', '--max-new-tokens', '8', '--bootstrap', '2', '--threads', '1', '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect((JSON.parse(result.stdout) as { benchmarks: { name: string }[] }).benchmarks.map((b) => b.name)).toEqual(['arithmetic']);
    });

    it('should blame a model directory that is not there, not --task', async () => {
      const missing = join(dir, 'no-such-run', 'checkpoint', 'policies', 'senior');
      await expectRefused(['eval', '--model', missing], `[CHECKPOINT_MISSING_FILE] ${missing}: not a model directory (no such directory)`);
    });

    it('should ask for --task where the model does not say', async () => {
      const model = join(await mkdtemp(join(tmpdir(), 'ludus-usage-model-')), 'model');
      const { config, weights } = randomModel();
      await saveCheckpoint(model, config, weights);
      await expectRefused(['eval', '--model', model], `[INPUT_INVALID] --task: ${model} does not say which task it was trained on (no pretrain_config.json); give --task`);
    });
  });
});
