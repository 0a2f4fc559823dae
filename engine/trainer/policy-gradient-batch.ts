import type { Trajectory } from '../../core/trajectory/trajectory.ts';
import type { LearnBatch } from '../../native/train/learn-batch.ts';

export interface PolicyGradientRows {
  readonly trajectories: readonly Trajectory[];
  /** Per trajectory, per response token: 1 where the trainable author wrote it. */
  readonly masks: readonly (readonly number[])[];
  /** Per trajectory: one advantage broadcast over its tokens (GRPO's outcome advantage), or one per response token. */
  readonly advantages: readonly (number | readonly number[])[];
  /** Per trajectory, per response token: the reference policy's logprob (KL-Reg). */
  readonly refLogprobs?: readonly (readonly number[])[];
  /** Per trajectory, per response token: 1 where the imitation term (λ_jun) applies — the junior's tokens. */
  readonly imitationMasks?: readonly (readonly number[])[];
}

/**
 * The learner's batch: prompt + response right-padded, position i predicting token i + 1, the loss mask and the old
 * (sampling-time) logprobs on the response tokens the trainable author wrote. Padding and prompt carry mask 0.
 */
export function policyGradientBatch(input: PolicyGradientRows, padToken: number): LearnBatch {
  const { trajectories } = input;
  const rows = trajectories.length;
  const cols = Math.max(...trajectories.map((t) => t.promptIds.length + t.responseIds.length)) - 1;
  const inputIds = new Int32Array(rows * cols).fill(padToken);
  const targets = new Int32Array(rows * cols).fill(padToken);
  const lossMask = new Float32Array(rows * cols);
  const oldLogprobs = new Float32Array(rows * cols);
  const references = input.refLogprobs;
  const imitated = input.imitationMasks;
  const refLogprobs = references ? new Float32Array(rows * cols) : undefined;
  const imitationMask = imitated ? new Float32Array(rows * cols) : undefined;
  const perToken = input.advantages.some((advantage) => typeof advantage !== 'number') ? new Float32Array(rows * cols) : undefined;
  trajectories.forEach((trajectory, r) => {
    const sequence = [...trajectory.promptIds, ...trajectory.responseIds];
    const promptLength = trajectory.promptIds.length;
    for (let i = 0; i + 1 < sequence.length; i++) {
      const at = r * cols + i;
      inputIds[at] = sequence[i];
      targets[at] = sequence[i + 1];
      const t = i + 1 - promptLength;
      if (t < 0) continue;
      lossMask[at] = input.masks[r][t];
      oldLogprobs[at] = trajectory.logprobs[t];
      if (refLogprobs && references) refLogprobs[at] = references[r][t];
      if (imitationMask && imitated) imitationMask[at] = imitated[r][t];
      if (perToken) {
        const advantage = input.advantages[r];
        perToken[at] = typeof advantage === 'number' ? advantage : advantage[t];
      }
    }
  });
  return {
    rows,
    cols,
    inputIds,
    targets,
    lossMask,
    advantages: perToken ?? Float32Array.from(input.advantages as readonly number[]),
    oldLogprobs,
    ...(refLogprobs ? { refLogprobs } : {}),
    ...(imitationMask ? { imitationMask } : {}),
  };
}
