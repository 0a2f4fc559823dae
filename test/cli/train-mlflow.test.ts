import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../core/events.ts';
import { gitCommit } from '../../native/io/git-commit.ts';
import { configFile, runLudus, type CliResult } from '../support/cli.ts';
import { startMlflowStandIn, type MlflowStandIn } from '../support/mlflow-server.ts';
import { readEventFile } from '../support/tensorboard-reader.ts';

const tinyConfig = { problemsPerStep: 1, groupSize: 2, maxNewTokens: 48, validateEvery: 2, validationProblems: 2, finalComparison: 0 };
const train = (file: string, out: string, env: NodeJS.ProcessEnv = process.env) => runLudus(['train', 'tandem', '--config', file, '--steps', '2', '--out', out, '--no-watch', '--threads', '1'], { env });
const withoutMlflowEnv = (): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MLFLOW_')));

describe('ludus train with tracking.mlflow', () => {
  describe('having a tracking server that holds every request to MLflow service.proto', () => {
    let server: MlflowStandIn;
    let out: string;
    let result: CliResult;
    beforeAll(async () => {
      server = await startMlflowStandIn();
      const { dir, file } = await configFile({ ...tinyConfig, finalComparison: 2, tracking: { mlflow: { uri: server.url, experiment: 'cli' } } });
      out = join(dir, 'run');
      result = await train(file, out, withoutMlflowEnv());
    });
    afterAll(async () => {
      await server.close();
    });

    it('should train to the end and log one FINISHED run, every request conforming', () => {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toContain('TRACKING_FAILED');
      expect(server.violations).toEqual([]);
      expect(server.requests.every((r) => r.path.startsWith('/api/2.0/mlflow/'))).toBe(true);
      expect(server.runs.size).toBe(1);
      const [run] = [...server.runs.values()];
      expect(run).toMatchObject({ experimentId: server.experiments.get('cli'), runName: basename(out), status: 'FINISHED' });
    });

    it('should log at every step the numbers TensorBoard got, under the same names', async () => {
      const [run] = [...server.runs.values()];
      const files = (await readdir(out)).filter((name) => name.startsWith('events.out.tfevents.'));
      const events = (await Promise.all(files.map((name) => readEventFile(join(out, name))))).flat().filter((e) => e.scalars !== undefined);
      for (const step of [1, 2]) {
        const board = Object.assign({}, ...events.filter((e) => e.step === step).map((e) => e.scalars)) as Record<string, number>;
        const logged = run.metrics.filter((m) => m.step === step);
        expect(logged.map((m) => m.key).sort()).toEqual(Object.keys(board).sort());
        for (const metric of logged) expect(metric.value).toBeCloseTo(board[metric.key], 4);
      }
      expect(run.metrics.map((m) => m.key)).toContain('validation/senior/accuracy');
      const line = JSON.parse((await readFile(join(out, 'metrics.jsonl'), 'utf8')).split('\n')[0]) as { roles: { senior: { reward_mean: number } } };
      expect(run.metrics.find((m) => m.step === 1 && m.key === 'role/senior/reward_mean')?.value).toBe(line.roles.senior.reward_mean);
    });

    it('should write every final figure with its SE to summary.json, and log the same figures to TensorBoard and MLflow at the last step', async () => {
      const summary = JSON.parse(await readFile(join(out, 'summary.json'), 'utf8')) as RunSummary;
      const printed = JSON.parse(result.stdout) as { comparison: { trained: { value: number; se: number }; difference: { value: number; se: number } } };
      expect(summary).toMatchObject({ game: 'tandem', steps: 2, comparison: { role: 'senior', split: 'test', problems: 2, trained: printed.comparison.trained, difference: printed.comparison.difference } });
      const validation = (await readFile(join(out, 'validation.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { step: number; accuracy: number; problems: number });
      const best = validation.reduce((top, line) => (line.accuracy > top.accuracy ? line : top));
      expect(summary.best).toEqual({ role: 'senior', step: best.step, split: 'validation', problems: best.problems, accuracy: { value: best.accuracy, se: Math.sqrt((best.accuracy * (1 - best.accuracy)) / best.problems) } });
      const files = (await readdir(out)).filter((name) => name.startsWith('events.out.tfevents.'));
      const board = Object.assign({}, ...(await Promise.all(files.map((name) => readEventFile(join(out, name))))).flat().filter((e) => e.step === 2 && e.scalars !== undefined).map((e) => e.scalars)) as Record<string, number>;
      const c = summary.comparison!;
      const expected = {
        'final/senior/trained': c.trained.value,
        'final/senior/trained_se': c.trained.se,
        'final/senior/start': c.start.value,
        'final/senior/start_se': c.start.se,
        'final/senior/difference': c.difference.value,
        'final/senior/difference_se': c.difference.se,
        'best/senior/accuracy': summary.best!.accuracy.value,
        'best/senior/accuracy_se': summary.best!.accuracy.se,
      };
      for (const [tag, value] of Object.entries(expected)) expect(board[tag], tag).toBeCloseTo(value, 5);
      const [run] = [...server.runs.values()];
      for (const [tag, value] of Object.entries(expected)) expect(run.metrics.find((m) => m.step === 2 && m.key === tag)?.value, tag).toBeCloseTo(value, 5);
      expect(result.stderr).toContain('summary.json');
    });

    it('should log the config as params and the game, seed and commit as tags', async () => {
      const [run] = [...server.runs.values()];
      expect(Object.fromEntries(run.params)).toMatchObject({ game: 'tandem', steps: '2', seed: '0', problemsPerStep: '1', groupSize: '2', 'schedule.lr': '0.0001' });
      expect(Object.fromEntries(run.tags)).toMatchObject({ 'ludus.game': 'tandem', 'ludus.seed': '0', 'mlflow.source.git.commit': await gitCommit(process.cwd()) });
    });
  });

  describe('having MLFLOW_TRACKING_URI name a server that is down', () => {
    it('should warn once with TRACKING_FAILED and train to the end', async () => {
      const server = await startMlflowStandIn();
      await server.close();
      const { dir, file } = await configFile({ ...tinyConfig, validateEvery: 0, tracking: { mlflow: {} } });
      const result = await train(file, join(dir, 'run'), { ...withoutMlflowEnv(), MLFLOW_TRACKING_URI: server.url });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr.match(/TRACKING_FAILED/g)).toHaveLength(1);
      expect(result.stderr).toContain(`MLflow tracking at ${server.url} is off for the rest of this run`);
      expect((await readFile(join(dir, 'run', 'metrics.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(2);
    });
  });

  describe('having tracking.mlflow with no server named anywhere', () => {
    it('should refuse the run with CONFIG_INVALID, exit 2, before training', async () => {
      const { dir, file } = await configFile({ ...tinyConfig, tracking: { mlflow: {} } });
      const result = await train(file, join(dir, 'run'), withoutMlflowEnv());
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('[CONFIG_INVALID] tracking.mlflow: no tracking server');
    });
  });
});
