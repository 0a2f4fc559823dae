import { readFile, stat } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { composePlugins } from '../../../composition/compose.ts';
import { parseConfig } from '../../../core/parse-config.ts';
import { TangoExperimentConfigSchema, type TangoExperimentConfigInput } from '../../../lab/experiments/tango-experiment-config.ts';
import { runTangoVsGrpo } from '../../../lab/experiments/tango-vs-grpo.ts';
import { expectConfigInvalid } from '../../support/errors.ts';

/** Figure 4's four runs at the smallest size that exercises every phase: 2 generator steps, 3 test problems. */
const tiny: TangoExperimentConfigInput = {
  generatorSteps: 2,
  knobs: { verifierWarmup: 1, generatorTokens: 48, verifierTokens: 32 },
  train: { problemsPerStep: 1, groupSize: 2, validateEvery: 1, validationProblems: 2, checkpointEvery: 1 },
  eval: { problems: 3, samples: 2, verifierSamples: 2, batch: 4, bootstrap: 50 },
};
const catalog = await composePlugins();
const run = (out: string) => runTangoVsGrpo({ out, config: parseConfig(TangoExperimentConfigSchema, tiny, 'test'), catalog, threads: 1 });

describe('runTangoVsGrpo', () => {
  describe('having a tiny experiment on the shipped last-letter base, run twice', () => {
    it('should train the four arms at matched generator steps, evaluate and report them, and redo nothing the second time', { timeout: 900_000 }, async () => {
      const out = await mkdtemp(join(tmpdir(), 'ludus-tango-experiment-'));
      const first = await run(out);
      // Tango: its warm-up step, then 2 generator steps; the fixed generator gets Tango's 1 verifier update.
      expect(first.arms.map(({ arm, steps, generatorUpdates, verifierUpdates }) => [arm, steps, generatorUpdates, verifierUpdates])).toEqual([
        ['tango', 3, 2, 1],
        ['grpo', 2, 2, 0],
        ['fixed-verifier', 2, 2, 0],
        ['fixed-generator', 1, 0, 1],
      ]);
      for (const arm of first.arms) expect(arm.curve.map((point) => point.step)).toEqual(Array.from({ length: arm.steps }, (_, i) => i + 1));
      expect(Object.keys(first.verifiers).sort()).toEqual(['base', 'fixed-generator', 'tango']);
      expect(first.costs.every((cost) => cost.status === 'ran' && cost.wall_s > 0)).toBe(true);
      const report = await readFile(first.report, 'utf8');
      for (const heading of ['## Training curves (Figure 4)', '## Final generators', '## Final verifiers']) expect(report).toContain(heading);
      expect((await stat(join(out, 'generator-accuracy.png'))).size).toBeGreaterThan(0);
      // A verifier panel is drawn where its F1 is defined somewhere (2 validation problems can leave it without a positive).
      const points = [first.baseCurvePoint, ...first.arms.flatMap((arm) => arm.curve)];
      for (const [figure, metric] of [['verifier-step-f1', 'step_f1'], ['verifier-outcome-f1', 'outcome_f1']] as const) {
        const drawn = await stat(join(out, `${figure}.png`)).then(() => true, () => false);
        expect(drawn, figure).toBe(points.some((p) => p[metric] !== null));
      }

      const again = await run(out);
      // costs.jsonl keeps every process's lines: the first run's, then the second's, all cached.
      expect(again.costs.slice(first.costs.length).map((cost) => cost.status)).toEqual(first.costs.map(() => 'cached'));
      expect(again.generators).toEqual(first.generators);
    });
  });
});

describe('TangoExperimentConfigSchema', () => {
  it('should refuse an arm-specific knob or a field the experiment sets itself, naming it', () => {
    expectConfigInvalid((input) => parseConfig(TangoExperimentConfigSchema, input, 'test'), [
      [{ knobs: { ablation: 'none' } }, 'knobs'],
      [{ train: { steps: 5 } }, 'train'],
      [{ generatorSteps: 0 }, 'generatorSteps'],
    ]);
  });
});
