import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { composePlugins } from '../../../composition/compose.ts';
import { parseConfig } from '../../../core/parse-config.ts';
import { AGON_ROWS, AgonExperimentConfigSchema, type AgonExperimentConfigInput } from '../../../lab/experiments/agon-experiment-config.ts';
import { perProblemOf } from '../../../lab/experiments/agon-report.ts';
import { AGON_VS_GRPO, runAgonVsGrpo } from '../../../lab/experiments/agon-vs-grpo.ts';
import { expectConfigInvalid } from '../../support/errors.ts';

/** Every run and every evaluation at the smallest size that exercises them: 1 step, 3 test problems, 2 answers each. */
const tiny: AgonExperimentConfigInput = {
  steps: 1,
  knobs: { turnTokens: 40 },
  train: { problemsPerStep: 1, groupSize: 2, checkpointEvery: 1 },
  eval: { problems: 3, samples: 2, batch: 3, bootstrap: 50 },
};
const catalog = await composePlugins();
const run = (out: string, input: AgonExperimentConfigInput = tiny) => runAgonVsGrpo({ out, config: parseConfig(AgonExperimentConfigSchema, input, 'test'), catalog, threads: 1 });
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('runAgonVsGrpo', () => {
  describe('having a tiny experiment on the shipped arithmetic base, run twice', () => {
    it('should train the five runs, evaluate every model on the same problems, test and report them, and redo nothing the second time', { timeout: 900_000 }, async () => {
      const out = await mkdtemp(join(tmpdir(), 'ludus-agon-experiment-'));
      dirs.push(out);
      const first = await run(out);
      expect(first.arms.map((arm) => [arm.arm, arm.config.game, arm.config.steps])).toEqual([
        ['agon', 'agon', 1],
        ['fixed-roles', 'agon', 1],
        ['cooperative', 'agon', 1],
        ['self-refinement', 'agon', 1],
        ['grpo', 'grpo', 1],
      ]);
      // GRPO answers at the agon turn cap, as one rank-16 adapter.
      const grpo = first.arms.find((arm) => arm.arm === 'grpo')!.config;
      expect(grpo.maxNewTokens).toBe(40);
      expect(grpo.policies.senior?.adapter?.r).toBe(16);
      expect(Object.keys(first.rows)).toEqual([...AGON_ROWS]);
      const kinds = Object.fromEntries(Object.entries(first.rows).map(([row, r]) => [row, r.kind === 'cascade' ? r.result.generations : 1]));
      expect(kinds).toEqual({ base: 1, grpo: 1, 'base-cascade': 2, moa: 3, 'grpo-cascade': 2, agon: 2, 'agon-reversed': 2, 'fixed-roles': 2, cooperative: 2, 'self-refinement': 2 });
      // Every model answered the same problems.
      const ids = (row: (typeof AGON_ROWS)[number]) => perProblemOf(first.rows[row]!).perProblem.map((p) => p.id);
      for (const row of AGON_ROWS) expect(ids(row)).toEqual(ids('base'));
      expect(first.tests.map((t) => `${t.model}>${t.other}@${t.other_k}`)).toContain('agon>grpo@2');
      for (const t of first.tests) expect(t.n).toBe(3);
      const report = await readFile(first.report, 'utf8');
      for (const heading of ['## pass@k', '## Paired tests', '## Ablations (§5)', '## Trace lengths per stage', '## Training']) expect(report).toContain(heading);
      // Rows that answered alike are named as such: here Agon's A drafts in the cooperative run too, after one step.
      const alike = (a: (typeof AGON_ROWS)[number], b: (typeof AGON_ROWS)[number]) => {
        const [x, y] = [first.rows[a]!, first.rows[b]!];
        return x.kind === 'cascade' && y.kind === 'cascade' && JSON.stringify(x.result.per_problem) === JSON.stringify(y.result.per_problem);
      };
      if (alike('agon', 'cooperative')) expect(report).toMatch(/Answered every problem exactly alike[^\n]*Agon cascade A → B = [^\n]*cooperative exchange A → B/);
      else expect(report).not.toMatch(/Agon cascade A → B = [^\n;]*cooperative exchange/);
      for (const figure of ['pass-at-k', 'training-correct']) expect((await stat(join(out, `${figure}.png`))).size).toBeGreaterThan(0);
      expect(Object.keys(first.divergence)).toEqual(['agon', 'fixed-roles', 'cooperative']);
      expect(Object.keys(first.training)).toEqual(['agon', 'fixed-roles', 'cooperative', 'self-refinement']);

      const again = await run(out);
      expect(again.costs.slice(first.costs.length).map((cost) => cost.status)).toEqual(first.costs.map(() => 'cached'));
      expect(again.rows).toEqual(first.rows);
    });
  });
});

describe('runAgonVsGrpo on a subset of the runs', () => {
  it('should train only the runs named, evaluate the base and their rows, test conversions, and compare A with B on the same seeds', { timeout: 900_000 }, async () => {
    const out = await mkdtemp(join(tmpdir(), 'ludus-agon-arms-'));
    dirs.push(out);
    const result = await run(out, { ...tiny, arms: ['cooperative', 'agon'] });
    expect(result.arms.map((arm) => arm.arm)).toEqual(['agon', 'cooperative']);
    expect(Object.keys(result.rows)).toEqual(['base', 'base-cascade', 'moa', 'agon', 'agon-reversed', 'cooperative']);
    const conversion = result.tests.find((t) => t.metric === 'converted')!;
    expect([conversion.model, conversion.other, conversion.n]).toEqual(['agon', 'cooperative', 3]);
    // Per problem, conversions are answers, so at most the samples; and they add up to the cascade's conversion rate.
    const agon = result.rows.agon!;
    if (agon.kind !== 'cascade') throw new Error('the agon row is a cascade');
    const total = agon.result.per_problem.reduce((a, p) => a + p.converted!, 0);
    expect(total / (3 * 2)).toBeCloseTo(agon.result.converted.value, 12);
    expect(Object.keys(result.divergence)).toEqual(['agon', 'cooperative']);
    for (const d of Object.values(result.divergence)) expect(d).toMatchObject({ problems: 3, samples: 2 });
    // One training step: the metrics' challenger labels, as the report reads them.
    expect(result.training.agon!.steps.map((s) => s.step)).toEqual([1]);
    const report = await readFile(result.report, 'utf8');
    expect(report).toContain('## Do A and B answer differently?');
    expect(report).toContain('The conversion bonus raises conversions');
    expect(report).not.toContain('vanilla GRPO (one pass) |');
  });
});

describe("the GRPO baseline's reward", () => {
  const grpoKnobs = (input: AgonExperimentConfigInput) => {
    const config = parseConfig(AgonExperimentConfigSchema, input, 'test');
    return AGON_VS_GRPO.plan(config, { catalog, grader: 'math' }).find((plan) => plan.arm === 'grpo')!.config.knobs;
  };

  it("should pay GRPO what Agon's arms are paid, 2 · correct + 1 · format, following the agon knobs, unless the config asks for correctness alone", () => {
    expect(grpoKnobs({})).toEqual({ zeroVariance: 'drop', correctWeight: 2, formatWeight: 1 });
    expect(grpoKnobs({ knobs: { correctWeight: 3, formatWeight: 0.5 } })).toEqual({ zeroVariance: 'drop', correctWeight: 3, formatWeight: 0.5 });
    expect(grpoKnobs({ grpoReward: 'correctness' })).toEqual({ zeroVariance: 'drop' });
  });
});

describe('AgonExperimentConfigSchema', () => {
  it('should keep the runs named in the design order, and refuse an unknown or repeated one', () => {
    expect(parseConfig(AgonExperimentConfigSchema, { arms: ['grpo', 'agon'] }, 'test').arms).toEqual(['agon', 'grpo']);
    expect(parseConfig(AgonExperimentConfigSchema, {}, 'test').arms).toEqual(['agon', 'fixed-roles', 'cooperative', 'self-refinement', 'grpo']);
    expectConfigInvalid((input) => parseConfig(AgonExperimentConfigSchema, input, 'test'), [
      [{ arms: ['agon', 'agon'] }, 'arms'],
      [{ arms: ['tango'] }, 'arms.0'],
      [{ arms: [] }, 'arms'],
    ]);
  });

  it('should refuse an arm-specific knob or a field the experiment sets itself, naming it', () => {
    expectConfigInvalid((input) => parseConfig(AgonExperimentConfigSchema, input, 'test'), [
      [{ knobs: { conversionBonus: 0 } }, 'knobs'],
      [{ knobs: { proposals: 3 } }, 'knobs'],
      [{ train: { policies: {} } }, 'train'],
      [{ steps: 0 }, 'steps'],
      [{ moaProposals: 0 }, 'moaProposals'],
    ]);
  });
});
