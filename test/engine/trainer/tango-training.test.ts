import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MetricsLine } from '../../../engine/trainer/metrics-line.ts';
import type { TranscriptLine } from '../../../engine/trainer/transcript-line.ts';
import type { TrainConfigInput } from '../../../engine/trainer/train-config.ts';
import { readOptimizer } from '../../../engine/trainer/training-checkpoint.ts';
import { jsonl, runTraining, tinyConfig } from '../../support/training.ts';

/** Tango on the shipped last-letter base at a tiny scale: a warm-up step, then 2 generator steps to 1 verifier step. */
const tango = (overrides: Partial<TrainConfigInput> = {}) =>
  tinyConfig({
    game: 'tango',
    task: 'last-letter',
    grader: 'exact',
    temperature: 1,
    problemsPerStep: 1,
    groupSize: 2,
    steps: 5,
    checkpointEvery: 1,
    knobs: { verifierWarmup: 1, generatorSteps: 2, verifierSteps: 1, generatorTokens: 40, verifierTokens: 24 },
    ...overrides,
  });

const policyFile = (out: string, policy: string, file: string) => readFile(join(out, 'checkpoint', 'policies', policy, file));

describe('tango training on the shipped base', () => {
  describe('having a warm-up step and 2 : 1 interleaving over 5 steps', () => {
    it('should train the verifier, then the generator twice, the verifier, the generator, each with its own optimizer, and report both roles', async () => {
      const { out } = await runTraining(tango());
      const metrics = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
      expect(metrics.map((line) => line.trains)).toEqual([['verifier'], ['generator'], ['generator'], ['verifier'], ['generator']]);
      expect(metrics.map((line) => Object.keys(line.policies))).toEqual([['verifier'], ['generator'], ['generator'], ['verifier'], ['generator']]);
      const steps = async (policy: string) => (await readOptimizer(join(out, 'checkpoint', 'policies', policy, 'optimizer.safetensors'))).step;
      expect([await steps('generator'), await steps('verifier')]).toEqual([3, 2]);
      for (const line of metrics) {
        expect(line.roles.verifier).toHaveProperty('outcome_f1');
        expect(line.roles.verifier).toHaveProperty('step_f1');
        expect(typeof line.policies[line.trains[0]].kl_to_initial).toBe('number');
        expect(line.policies[line.trains[0]].loss).not.toBeNull();
      }
      expect(metrics[1].roles.generator.alpha).toBeCloseTo(0.1, 12);
      expect(metrics[4].roles.generator.alpha).toBeLessThan(metrics[1].roles.generator.alpha as number);
      expect(metrics[0].roles.verifier).toHaveProperty('class_weight_incorrect');
    });

    it('should judge one solution per prompt on verifier steps and a fresh solution per match on generator steps', async () => {
      const { out } = await runTraining(tango({ steps: 2, groupSize: 3 }));
      const lines = await jsonl<TranscriptLine>(join(out, 'transcripts.jsonl'));
      const solutions = (step: number) => new Set(lines.filter((l) => l.step === step).map((l) => JSON.stringify(l.turns[0].responseIds)));
      expect(solutions(1).size).toBe(1);
      expect(lines.filter((l) => l.step === 1).map((l) => l.turns.map((t) => t.role))).toEqual([0, 1, 2].map(() => ['generator', 'verifier']));
      expect(solutions(2).size).toBeGreaterThan(1);
    });
  });

  describe('having run 5 steps straight, or 3, stopped, and resumed for 2', () => {
    it('should end bit-identical: both policies, their moments, the class-weight EMA, metrics and transcripts', async () => {
      const config = tango();
      const straight = await runTraining(config);
      const split = await runTraining(config, { stopAfter: 3 });
      await runTraining(config, { out: split.out, resume: true });
      for (const policy of ['generator', 'verifier']) {
        for (const file of ['model.safetensors', 'optimizer.safetensors']) expect((await policyFile(split.out, policy, file)).equals(await policyFile(straight.out, policy, file))).toBe(true);
      }
      const withoutTime = (lines: MetricsLine[]) => lines.map(({ seconds: _seconds, ...rest }) => rest);
      expect(withoutTime(await jsonl(join(split.out, 'metrics.jsonl')))).toEqual(withoutTime(await jsonl(join(straight.out, 'metrics.jsonl'))));
      expect(await jsonl(join(split.out, 'transcripts.jsonl'))).toEqual(await jsonl(join(straight.out, 'transcripts.jsonl')));
    });
  });
});
