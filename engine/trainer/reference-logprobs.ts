import type { Trajectory } from '../../core/trajectory/trajectory.ts';
import type { Scorer } from '../../native/runtime/scorer.ts';

/**
 * A reference policy's log-probability of every response token (KL-Reg's frozen junior), teacher-forced, under the
 * sampling temperature (so a KL toward it compares like with like: the learner scores its policy at that temperature too).
 * Scored `rowsPerRun` sequences at a time, shortest first, each run padded only to its own longest: one run over a
 * step's 64 verifier-length rows held 6 GB in onnxruntime's arena, runs of 4 under 1 GB at no cost in time. Every row
 * is scored alone in its run's causal forward, so the split does not change what it gets.
 */
export async function referenceLogprobs(scorer: Scorer, trajectories: readonly Trajectory[], temperature: number, rowsPerRun = trajectories.length): Promise<number[][]> {
  const V = scorer.policy.config.vocabSize;
  const sequences = trajectories.map((t) => [...t.promptIds, ...t.responseIds]);
  const order = sequences.map((_, r) => r).sort((a, b) => sequences[a].length - sequences[b].length || a - b);
  const out: number[][] = new Array(trajectories.length);
  for (let i = 0; i < order.length; i += Math.max(1, rowsPerRun)) {
    const run = order.slice(i, i + Math.max(1, rowsPerRun));
    const scored = await scorer.score(run.map((r) => sequences[r]), { full: true });
    run.forEach((r, k) => {
      const full = scored[k].full!;
      const P = trajectories[r].promptIds.length;
      out[r] = trajectories[r].responseIds.map((token, t) => temperedLogprob(full.subarray((P + t - 1) * V, (P + t) * V), token, temperature));
    });
  }
  return out;
}

/** log softmax(logp / T)[token] from a row of log-probabilities at temperature 1. */
export function temperedLogprob(logprobs: Float32Array, token: number, temperature: number): number {
  let max = -Infinity;
  for (const value of logprobs) max = Math.max(max, value / temperature);
  let sum = 0;
  for (const value of logprobs) sum += Math.exp(value / temperature - max);
  return logprobs[token] / temperature - max - Math.log(sum);
}
