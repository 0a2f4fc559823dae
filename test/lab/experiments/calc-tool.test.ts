import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { composePlugins } from '../../../composition/compose.ts';
import type { Validation } from '../../../engine/trainer/validate.ts';
import { CALC_TOOL, CalcToolExperimentConfigSchema } from '../../../lab/experiments/calc-tool.ts';
import { MODEL_SERVICES, type ExperimentServices } from '../../../lab/experiments/experiment-runner.ts';
import { runSeeds } from '../../../lab/experiments/seeds-summary.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Stand-ins: trainings that record their configs, evaluations whose accuracy says which model and setting played. */
function stubServices() {
  const trained: { game: string; knobs: Record<string, unknown>; seed: number }[] = [];
  const evaluated: { dir: string; tool: boolean; split?: string }[] = [];
  const services: ExperimentServices = {
    ...MODEL_SERVICES,
    train: async (run) => {
      trained.push({ game: run.config.game, knobs: run.config.knobs, seed: run.config.seed });
      return { steps: run.config.steps, checkpointed: run.config.steps, best: null };
    },
    validateGame: async (options) => {
      const tool = (options.game as unknown as { protocol: { turns: { tools: { tools: unknown[] } }[] } }).protocol.turns[0].tools.tools.length > 0;
      const dir = options.policies.solver;
      evaluated.push({ dir, tool, split: options.split });
      const good = dir.includes('/tool/') ? 4 : 1;
      const correct = Array.from({ length: 5 }, (_, i) => i < good);
      return { split: 'test', accuracy: good / 5, answerPresent: 1, problems: 5, role: 'solver', correct, judges: {}, tools: { tool_call_rate: dir.includes('/tool/') ? 0.9 : 0.2, tool_malformed: dir.includes('/tool/') ? 0.05 : 0.1 } } satisfies Validation;
    },
  };
  return { services, trained, evaluated };
}

describe('the calc-tool experiment', () => {
  it('should train the game with and without its calculator at each seed, evaluate the base and both on the test split, and summarize across seeds', async () => {
    const out = await mkdtemp(join(tmpdir(), 'ludus-calc-tool-'));
    dirs.push(out);
    const { services, trained, evaluated } = stubServices();
    const config = CalcToolExperimentConfigSchema.parse({ steps: 2, eval: { problems: 5 } });
    const result = await runSeeds(CALC_TOOL, { out, config, catalog: await composePlugins() }, [0, 1], services);
    expect(trained).toEqual([
      { game: 'calc', knobs: { tool: true }, seed: 0 },
      { game: 'calc', knobs: { tool: false }, seed: 0 },
      { game: 'calc', knobs: { tool: true }, seed: 1 },
      { game: 'calc', knobs: { tool: false }, seed: 1 },
    ]);
    expect(evaluated.every((e) => e.split === 'test')).toBe(true);
    expect(evaluated.slice(0, 4).map((e) => [e.dir.includes('seed-0/tool/'), e.dir.includes('seed-0/no-tool/'), e.tool])).toEqual([
      [false, false, true],
      [false, false, false],
      [true, false, true],
      [false, true, false],
    ]);
    const row = (model: string, metric: string) => result.summary.find((r) => r.model === model && r.metric === metric)!;
    expect(row('RL with the tool', 'accuracy').mean).toBeCloseTo(0.8, 9);
    expect(row('RL with the tool', 'tool call rate').perSeed.map((s) => s.value)).toEqual([0.9, 0.9]);
    expect(row('base', 'malformed calls a match').mean).toBeCloseTo(0.1, 9);
    expect(result.tests.map((t) => `${t.model} > ${t.other}`)).toEqual(['RL with the tool > base', 'RL without the tool > base (no tool)', 'RL with the tool > RL without the tool']);
    expect(await readFile(join(out, 'seed-0', 'report.md'), 'utf8')).toContain('| RL with the tool | answers | 80.0% ±');
  });
});
