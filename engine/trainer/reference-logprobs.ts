import type { Trajectory } from '../../core/trajectory/trajectory.ts';
import type { Scorer } from '../../native/runtime/scorer.ts';
import { present } from '../../core/errors.ts';

/**
 * A reference policy's log-probability of every response token (KL-Reg's frozen junior), teacher-forced, under the
 * sampling temperature (so a KL toward it compares like with like: the learner scores its policy at that temperature too).
 */
export async function referenceLogprobs(scorer: Scorer, trajectories: readonly Trajectory[], temperature: number): Promise<number[][]> {
  const scored = await scorer.score(
    trajectories.map((t) => [...t.promptIds, ...t.responseIds]),
    { full: true },
  );
  const V = scorer.policy.config.vocabSize;
  return trajectories.map((trajectory, r) => {
    const full = present(scored[r].full, 'the full distributions scored with { full: true }');
    const P = trajectory.promptIds.length;
    return trajectory.responseIds.map((token, t) => temperedLogprob(full.subarray((P + t - 1) * V, (P + t) * V), token, temperature));
  });
}

/** log softmax(logp / T)[token] from a row of log-probabilities at temperature 1. */
export function temperedLogprob(logprobs: Float32Array, token: number, temperature: number): number {
  let max = -Infinity;
  for (const value of logprobs) max = Math.max(max, value / temperature);
  let sum = 0;
  for (const value of logprobs) sum += Math.exp(value / temperature - max);
  return logprobs[token] / temperature - max - Math.log(sum);
}
