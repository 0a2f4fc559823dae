import { describe, expect, it } from 'vitest';
import { grpo } from '../../../core/advantages/grpo.ts';
import { cloneWeights } from '../../../native/model/weights.ts';
import { Decoder } from '../../../native/runtime/decoder.ts';
import { generate } from '../../../native/runtime/generate.ts';
import { Learner } from '../../../native/train/learner.ts';
import { gradeMath } from '../../../plugins/graders/math/grade-math.ts';
import { loadPolicy } from '../../../plugins/policies/load-policy.ts';
import { resolveModelDir } from '../../../plugins/policies/default-model.ts';
import { policyGradientBatch } from '../../../engine/trainer/policy-gradient-batch.ts';
import { arithmeticTask } from '../../../plugins/tasks/arithmetic/arithmetic-task.ts';
import type { Trajectory } from '../../../core/trajectory/trajectory.ts';

const G = 16;
const temperature = 0.6;

/** The update's direction, end to end: GRPO on one problem the base solves sometimes must make it solve it more. */
describe('policy-gradient updates on the shipped base', () => {
  it('should raise the success rate on a problem it trains on', async () => {
    const { policy, tokenizer } = await loadPolicy(resolveModelDir('default', 'arithmetic'));
    const learner = await Learner.create(policy.config, cloneWeights(policy.weights), { objective: 'policy-gradient', optimizer: { lr: 1e-4 }, temperature, threads: 2 });
    const senior = { ...policy, weights: learner.weights };
    const decoder = await Decoder.create([senior], { batch: G, maxLen: 320, threads: 2 });
    const play = async (prompt: number[], seed: number) => {
      const rollouts = await generate(decoder, Array.from({ length: G }, () => prompt), { maxNewTokens: 200, sampling: { temperature, topK: 0, topP: 1 }, seed, stopTokens: [0] });
      return rollouts;
    };
    const task = arithmeticTask({});
    const successes = (answer: string, rollouts: Awaited<ReturnType<typeof play>>): number[] =>
      rollouts.map((r) => (gradeMath(answer, tokenizer!.decode(r.tokens.filter((t) => t !== 0))).correct ? 1 : 0));
    let problem = task.sample('train', 0);
    let prompt: number[] = [];
    let first: number[] = [];
    for (let index = 0; index < 200; index++) {
      problem = task.sample('train', index);
      prompt = tokenizer!.encode(problem.prompt);
      first = successes(problem.answer, await play(prompt, index));
      const solved = first.reduce((a, b) => a + b, 0);
      if (solved >= 3 && solved <= 10) break;
    }
    const before = first.reduce((a, b) => a + b, 0);
    expect(before).toBeGreaterThanOrEqual(3);
    for (let step = 0; step < 6; step++) {
      const rollouts = await play(prompt, 1000 + step);
      const rewards = successes(problem.answer, rollouts);
      const { advantages } = grpo([rewards]);
      const trajectories = rollouts.map((r) => ({ promptIds: r.prompt, responseIds: r.tokens, logprobs: r.logprobs }) as unknown as Trajectory);
      await learner.step(policyGradientBatch({ trajectories, masks: rollouts.map((r) => r.tokens.map(() => 1)), advantages: advantages[0] }, 1));
      await decoder.updatePolicy(0, senior);
    }
    const after = successes(problem.answer, await play(prompt, 5000)).reduce((a, b) => a + b, 0);
    expect(after, `solved ${before}/16 before, ${after}/16 after six updates`).toBeGreaterThanOrEqual(Math.min(before + 4, G));
    await decoder.release();
    await learner.release();
  }, 300_000);
});
