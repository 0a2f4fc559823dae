/** One line of OUT/metrics.jsonl per optimizer step. Fields a game does not compute are null. */
export interface MetricsLine {
  step: number;
  reward_mean: number;
  answer_present: number;
  /** Mean share of response tokens the senior wrote (co-decoding games). */
  senior_share: number | null;
  loss: number | null;
  grad_norm: number | null;
  clip_frac: number | null;
  /** Mean k3 KL(senior ‖ junior) over the senior's tokens, where the junior's logprobs were at hand. */
  kl_to_junior: number | null;
  response_len: number;
  zero_variance_groups: number;
  lr: number;
  /** 1 when this step's update was non-finite and skipped. */
  skipped_nonfinite: number;
  seconds: number;
}
