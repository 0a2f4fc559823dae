/**
 * Mean k3 estimate of KL(policy ‖ reference) over the masked tokens, from log-probabilities of tokens the policy
 * sampled: exp(ref − logp) − (ref − logp) − 1 (Schulman's unbiased, non-negative estimator). NaN when nothing is masked.
 */
export function meanK3(policy: readonly (readonly number[])[], reference: readonly (readonly number[])[], masks: readonly (readonly number[])[]): number {
  let sum = 0;
  let count = 0;
  policy.forEach((row, r) =>
    row.forEach((logp, t) => {
      if (masks[r][t] === 0) return;
      const delta = reference[r][t] - logp;
      sum += Math.exp(delta) - delta - 1;
      count += 1;
    }),
  );
  return count === 0 ? Number.NaN : sum / count;
}
