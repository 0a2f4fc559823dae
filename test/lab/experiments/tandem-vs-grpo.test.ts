import { readFile, rm, stat } from 'node:fs/promises';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../core/parse-config.ts';
import { ExperimentConfigSchema, type ExperimentConfigInput } from '../../../lab/experiments/experiment-config.ts';
import type { ExperimentProgress } from '../../../lab/experiments/experiment-progress.ts';
import { runTandemVsGrpo, type ExperimentResult } from '../../../lab/experiments/tandem-vs-grpo.ts';
import { runLudus } from '../../support/cli.ts';
import { composePlugins } from '../../../composition/compose.ts';
import { expectConfigInvalid, rejection } from '../../support/errors.ts';

/** Two problems per step, groups of two, three test problems with two samples each, 48 tokens: the whole pipeline in CI time. */
const tiny: ExperimentConfigInput = {
  train: { problemsPerStep: 2, groupSize: 2, maxNewTokens: 48, validateEvery: 0 },
  eval: { problems: 3, samples: 2, bootstrap: 200, maxNewTokens: 48, batch: 8 },
};
const configOf = (input: ExperimentConfigInput) => parseConfig(ExperimentConfigSchema, input, 'test');
const catalog = await composePlugins();
const run = (out: string, input: ExperimentConfigInput, onProgress?: (p: ExperimentProgress) => void) => runTandemVsGrpo({ out, config: configOf(input), catalog, threads: 1, onProgress });
const statuses = (result: ExperimentResult) => Object.fromEntries(result.phases.map((p) => [p.phase, p.status]));
const mtime = async (path: string) => (await stat(path)).mtimeMs;

const GAMES = ['grpo', 'kl-reg', 'tandem'];
const EVALS = ['base', ...GAMES];

describe('runTandemVsGrpo', () => {
  describe('having a tiny experiment run for one step, then for two, then again', () => {
    it('should train, evaluate and report; resume the trainings from their checkpoints; and redo nothing finished', { timeout: 900_000 }, async () => {
      const out = await mkdtemp(join(tmpdir(), 'ludus-experiment-'));
      const seen: ExperimentProgress[] = [];
      const first = await run(out, { ...tiny, steps: 1 }, (p) => seen.push(p));
      expect(Object.values(statuses(first))).toEqual(Array(7).fill('ran'));
      expect(first.seniors.map((s) => [s.game, s.step, s.selected])).toEqual([['grpo', 1, 'final'], ['kl-reg', 1, 'final'], ['tandem', 1, 'final']]);
      expect(seen.at(-1)!.done).toBe(seen.at(-1)!.total);
      expect(seen.map((p) => p.done)).toEqual([...seen.map((p) => p.done)].sort((a, b) => a - b));
      expect(new Set(seen.map((p) => p.phase))).toEqual(new Set([...GAMES.map((g) => `train ${g}`), ...EVALS.map((m) => `eval ${m}`)]));
      const firstMetrics = await Promise.all(GAMES.map((g) => readFile(join(out, g, 'metrics.jsonl'), 'utf8')));

      // More steps: each training continues from its step-1 checkpoint (its first metrics line, wall time included,
      // is kept byte for byte), and every senior is evaluated again; the untouched base is not.
      const second = await run(out, { ...tiny, steps: 2 });
      expect(statuses(second)).toEqual({ 'train grpo': 'ran', 'train kl-reg': 'ran', 'train tandem': 'ran', 'eval base': 'cached', 'eval grpo': 'ran', 'eval kl-reg': 'ran', 'eval tandem': 'ran' });
      for (const [i, game] of GAMES.entries()) {
        const lines = (await readFile(join(out, game, 'metrics.jsonl'), 'utf8')).trim().split('\n');
        expect(lines.map((l) => (JSON.parse(l) as { step: number }).step)).toEqual([1, 2]);
        expect(`${lines[0]}\n`).toBe(firstMetrics[i]);
      }
      expect(second.seniors.map((s) => s.step)).toEqual([2, 2, 2]);
      expect(second.reports.tandem.model).toBe(join(out, 'tandem', 'checkpoint', 'policies', 'senior'));
      expect(second.reports.tandem.reference).toBe(join(out, 'grpo', 'checkpoint', 'policies', 'senior'));
      const trlComparisons = second.comparisons.map((c) => [c.model, c.significance.other]);
      expect(trlComparisons).toEqual([[second.reports.tandem.model, second.reports.grpo.model], [second.reports.tandem.model, second.reports['kl-reg'].model]]);
      expect(second.comparisons[0].significance.tests.map((t) => t.metric)).toContain('handoff alternate pass@1');

      const report = await readFile(second.report, 'utf8');
      for (const heading of ['## Solo capability', '## Handoff robustness', '## Drift from the junior', '## Junior legibility', '## Significance']) expect(report).toContain(heading);
      expect(report).toMatch(/\| TRL > GRPO \| capability pass@1 \|/);
      expect(report).toMatch(/\| TRL > KL-Reg \| handoff alternate pass@1 \|/);
      expect(report).toContain('![Training reward per step');
      for (const figure of ['training-reward', 'capability-pass-at-k', 'drift-survival', 'drift-displaced-trl']) {
        expect((await stat(join(out, `${figure}.svg`))).size).toBeGreaterThan(0);
        expect((await stat(join(out, `${figure}.png`))).size).toBeGreaterThan(0);
      }

      const cacheFiles = [...GAMES.map((g) => join(out, g, 'trained.json')), ...EVALS.map((m) => join(out, 'eval', `${m}.json`)), ...GAMES.map((g) => join(out, g, 'checkpoint', 'policies', 'senior', 'model.safetensors'))];
      const before = await Promise.all(cacheFiles.map(mtime));
      const evalsBefore = await Promise.all(EVALS.map((m) => readFile(join(out, 'eval', `${m}.json`), 'utf8')));

      // The same experiment again, from the command line: nothing is retrained or re-evaluated.
      const again = await runLudus(['experiment', 'tandem-vs-grpo', '--config', await configFile(out, tiny), '--steps', '2', '--out', out, '--threads', '1']);
      expect(again.stderr).not.toMatch(/\[[A-Z_]+\]/);
      expect(again.code).toBe(0);
      const summary = JSON.parse(again.stdout) as { phases: ExperimentResult['phases']; report: string };
      expect(summary.phases.map((p) => p.status)).toEqual(Array(7).fill('cached'));
      expect(again.stderr.trim().split('\n').at(-1)).toBe('tandem-vs-grpo: done (overall 100%)');
      expect(again.stderr).toContain('tandem-vs-grpo: eval tandem (overall');
      expect(await Promise.all(cacheFiles.map(mtime))).toEqual(before);
      expect(await Promise.all(EVALS.map((m) => readFile(join(out, 'eval', `${m}.json`), 'utf8')))).toEqual(evalsBefore);
      expect(await readFile(summary.report, 'utf8')).toBe(report);

      // A lost evaluation is the only phase redone.
      await rm(join(out, 'eval', 'tandem.json'));
      const partial = await run(out, { ...tiny, steps: 2 });
      expect(statuses(partial)).toEqual({ ...Object.fromEntries([...GAMES.map((g) => `train ${g}`), ...EVALS.map((m) => `eval ${m}`)].map((p) => [p, 'cached'])), 'eval tandem': 'ran' });
      // Evaluation is seeded: the redone evaluation measures the same numbers.
      expect(partial.reports.tandem.capability).toEqual(second.reports.tandem.capability);
      expect(partial.reports.tandem.drift).toEqual(second.reports.tandem.drift);

      // A different training config cannot resume these runs.
      const changed = await rejection(run(out, { ...tiny, steps: 2, train: { ...tiny.train, schedule: { lr: 1e-3 } } }));
      expect(changed.code).toBe('CONFIG_INVALID');
    });
  });
});

describe('runTandemVsGrpo and its grader', () => {
  // That every game is paid and every evaluation graded by the grader the training config names is checked on the
  // runner itself (experiment-runner.test.ts: each training's game and each evaluation's grader, through stand-ins).
  describe('having a grader name no plugin has', () => {
    it('should refuse it with CONFIG_INVALID before training anything, as ludus train does', async () => {
      const out = await mkdtemp(join(tmpdir(), 'ludus-experiment-'));
      const error = await rejection(run(out, { ...tiny, steps: 1, train: { ...tiny.train, grader: 'nope' } }));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toContain('no grader "nope"');
      await expect(stat(join(out, 'grpo'))).rejects.toThrow();
    });
  });
});

describe('ExperimentConfigSchema', () => {
  describe('having fields that must match across games set inside train, or bad values', () => {
    it('should refuse with CONFIG_INVALID naming the field', () => {
      expectConfigInvalid((input) => configOf(input as ExperimentConfigInput), [
        [{ train: { seed: 3 } }, 'train'],
        [{ train: { game: 'tandem' } }, 'train'],
        [{ steps: 0 }, 'steps'],
        [{ steps: 1.5 }, 'steps'],
        [{ checkpoint: 'latest' }, 'checkpoint'],
        [{ eval: { axes: ['speed'] } }, 'eval.axes.0'],
        [{ eval: { samples: 0 } }, 'eval.samples'],
        [{ colour: 'red' }, 'colour'],
      ]);
    });
  });

  describe('having a training override the trainer rejects', () => {
    it('should refuse it before training anything', async () => {
      const out = await mkdtemp(join(tmpdir(), 'ludus-experiment-'));
      const error = await rejection(run(out, { ...tiny, train: { groupSize: 1 } }));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toContain('field "groupSize"');
    });
  });
});

describe('ludus experiment', () => {
  describe('having an unknown experiment, a bad --steps or a missing --config file', () => {
    it('should exit with a coded error', async () => {
      const unknown = await runLudus(['experiment', 'chess-vs-go', '--out', join(tmpdir(), 'never')]);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/\[INPUT_INVALID\] unknown experiment "chess-vs-go"/);
      const steps = await runLudus(['experiment', 'tandem-vs-grpo', '--steps', 'many', '--out', join(tmpdir(), 'never')]);
      expect(steps.code).toBe(2);
      expect(steps.stderr).toMatch(/\[CONFIG_INVALID\].*"steps"/);
      const missing = await runLudus(['experiment', 'tandem-vs-grpo', '--config', join(tmpdir(), 'no-such-config.json')]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/\[FILE_NOT_FOUND\]/);
    });
  });
});

async function configFile(dir: string, config: ExperimentConfigInput): Promise<string> {
  const file = join(dir, 'config.json');
  await writeFile(file, JSON.stringify(config));
  return file;
}
