import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readOptimizer } from '../../engine/trainer/training-checkpoint.ts';
import { LUDUS_BIN, runLudus } from '../support/cli.ts';

/**
 * `ludus train tango` as a newcomer types it, on the embedded default (no --model, no --task: the game plays
 * arithmetic on its judging base, models/arithmetic-judge), scaled down by a config to what two cores run in seconds: a warm-up step, then
 * the paper's 3 generator steps to 1 verifier step.
 */
const config = {
  problemsPerStep: 1,
  groupSize: 2,
  checkpointEvery: 1,
  validateEvery: 0,
  finalComparison: 2,
  knobs: { verifierWarmup: 1, generatorTokens: 48, verifierTokens: 32 },
};

interface Line {
  step: number;
  trains: string[];
  policies: Record<string, { loss: number | null; kl_to_initial?: number }>;
  roles: Record<string, Record<string, number | null>>;
}

const lines = async (file: string): Promise<Line[]> =>
  (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line);

const checkpointStep = async (out: string): Promise<number> => {
  try {
    return (JSON.parse(await readFile(join(out, 'checkpoint', 'trainer_state.json'), 'utf8')) as { step: number }).step;
  } catch {
    return 0;
  }
};

/** Runs `ludus ...args` and SIGKILLs it once its checkpoint has reached `step`; resolves to the step it was killed at. */
function killAtCheckpoint(args: string[], out: string, step: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LUDUS_BIN, ...args], { stdio: 'ignore' });
    let killedAt: number | undefined;
    const poll = setInterval(() => {
      void checkpointStep(out).then((reached) => {
        if (killedAt !== undefined || reached < step) return;
        killedAt = reached;
        child.kill('SIGKILL');
      });
    }, 50);
    child.on('error', reject);
    child.on('exit', () => {
      clearInterval(poll);
      resolve(killedAt ?? -1);
    });
  });
}

describe('ludus train tango', () => {
  describe('having the embedded default and a tiny config, 5 steps straight, or killed after its third checkpoint and resumed', () => {
    it('should warm the verifier up, interleave 3 : 1 with an optimizer per policy, report both roles, and resume bit-identical', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-tango-cli-'));
      const file = join(dir, 'config.json');
      await writeFile(file, JSON.stringify(config));
      const args = (out: string, steps: number) => ['train', 'tango', '--config', file, '--steps', String(steps), '--out', out, '--no-watch', '--threads', '1'];
      const straight = join(dir, 'straight');
      const result = await runLudus(args(straight, 5), { timeoutMs: 300_000 });
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ out: straight, steps: 5, comparison: { role: 'generator', problems: 2 } });

      const metrics = await lines(join(straight, 'metrics.jsonl'));
      expect(metrics.map((line) => line.trains)).toEqual([['verifier'], ['generator'], ['generator'], ['generator'], ['verifier']]);
      for (const line of metrics) {
        expect(Object.keys(line.policies)).toEqual(line.trains);
        expect(typeof line.policies[line.trains[0]].loss).toBe('number');
        expect(typeof line.policies[line.trains[0]].kl_to_initial).toBe('number');
        for (const key of ['reward_mean', 'outcome_precision', 'outcome_recall', 'outcome_f1', 'step_f1']) expect(line.roles.verifier).toHaveProperty(key);
        expect(line.roles.generator).toHaveProperty('reward_mean');
        // The learning role's estimator reports its own: α and the share of step-rewarded solutions, or the class weights.
        const own = line.trains[0] === 'generator' ? ['alpha', 'step_rewarded'] : ['class_weight_correct', 'class_weight_incorrect'];
        for (const key of own) expect(line.roles[line.trains[0]]).toHaveProperty(key);
      }
      // α decays over the generator's own updates from the paper's 0.1 (§4) under GRPO, the default estimator.
      const alphas = metrics.filter((line) => line.trains[0] === 'generator').map((line) => line.roles.generator.alpha as number);
      expect(alphas[0]).toBeCloseTo(0.1, 12);
      expect(alphas[1]).toBeLessThan(alphas[0]);
      expect(alphas[2]).toBeLessThan(alphas[1]);
      const optimizerSteps = async (out: string, policy: string) => (await readOptimizer(join(out, 'checkpoint', 'policies', policy, 'optimizer.safetensors'))).step;
      expect([await optimizerSteps(straight, 'generator'), await optimizerSteps(straight, 'verifier')]).toEqual([3, 2]);

      // α's schedule spans the run's --steps, so a resumed run is the same 5-step run, killed (SIGKILL) mid-way.
      const resumed = join(dir, 'resumed');
      const killedAt = await killAtCheckpoint(args(resumed, 5), resumed, 3);
      expect(killedAt === 3 || killedAt === 4, `killed at checkpoint ${killedAt}`).toBe(true);
      const resume = await runLudus([...args(resumed, 5), '--resume'], { timeoutMs: 300_000 });
      expect(resume.code, resume.stderr).toBe(0);
      for (const policy of ['generator', 'verifier']) {
        for (const name of ['model.safetensors', 'optimizer.safetensors']) {
          const bytes = (out: string) => readFile(join(out, 'checkpoint', 'policies', policy, name));
          expect((await bytes(resumed)).equals(await bytes(straight)), `${policy}/${name}`).toBe(true);
        }
      }
      const withoutTime = (all: Line[]) => all.map(({ seconds: _seconds, ...rest }: Line & { seconds?: number }) => rest);
      expect(withoutTime(await lines(join(resumed, 'metrics.jsonl')))).toEqual(withoutTime(metrics));
      expect(await readFile(join(resumed, 'transcripts.jsonl'), 'utf8')).toBe(await readFile(join(straight, 'transcripts.jsonl'), 'utf8'));
    }, 600_000);
  });
});
