import type { DisplacedRanking } from '../../core/metrics/token-drift.ts';
import type { Split } from '../../core/tasks/task.ts';

/**
 * The one JSON object `ludus eval --json` prints and `--report DIR` writes as `report.json`: every evaluation axis of
 * the tandem RL paper (§4–5, appendices B–C) for one model, with bootstrap standard errors and the per-problem
 * statistics a later paired t-test (`--compare`) needs. Plain data only (numbers, strings, arrays, records): it
 * round-trips through JSON.stringify / JSON.parse unchanged, so reports from separate runs can be compared and plotted.
 *
 * Conventions
 * - Every pass@k is a fraction in [0, 1] (not percent). `k` keys are decimal strings ("1", "2", "4", ...).
 * - `se` is the bootstrap standard error: the standard deviation of the statistic over `bootstrap.resamples`
 *   resamples of problems with replacement; for macro averages the resampling is stratified by benchmark (each
 *   benchmark's problems are resampled within that benchmark, then the per-benchmark values are averaged).
 * - `macro` is the unweighted mean over benchmarks.
 * - Natural logarithms throughout (nats).
 */

/** Schema version of this object; bumped when a field changes meaning. */
export const EVAL_REPORT_VERSION = 1;

/** A value with its bootstrap standard error. */
export interface Estimate {
  value: number;
  se: number;
}

/** pass@k by the unbiased estimator (Chen et al., 2021) for each k in {1, 2, 4, 8, 16, 32} not above n. */
export type PassAtK = Record<string, Estimate>;

export type EvalAxis = 'capability' | 'handoff' | 'drift' | 'legibility';

export const EVAL_AXES: readonly EvalAxis[] = ['capability', 'handoff', 'drift', 'legibility'];

/**
 * `alternate` and `bernoulli` hand off at reasoning-step ends (§4.3, appendix B.3), the paper's evaluation; `word` is
 * its training schedule (§3.3, appendix A.1.2): a Bernoulli(p) redraw at every word-initial token with the K = 32
 * backstop, which measures tandem accuracy, the team score TRL optimizes.
 */
export type HandoffVariant = 'alternate' | 'bernoulli' | 'word';

export const HANDOFF_VARIANTS: readonly HandoffVariant[] = ['alternate', 'bernoulli', 'word'];

export interface BenchmarkInfo {
  /** As given to `--task`: a task name (`arithmetic`) or a JSONL path. */
  name: string;
  split: Split;
  /** Problems evaluated on this benchmark. */
  problems: number;
}

/**
 * Solo capability (§4.2): n samples per problem from the model alone. `answer_present_rate_se` is the bootstrap SE
 * of the answer-present rate over problems (per-problem rates resampled); absent in reports made before it existed,
 * like every `*_se` field marked optional below.
 */
export interface CapabilityResult {
  /** Samples per problem (n of the estimator). */
  samples: number;
  per_benchmark: Record<string, { pass_at_k: PassAtK; answer_present_rate: number; answer_present_rate_se?: number; mean_response_tokens: number }>;
  macro: { pass_at_k: PassAtK };
}

/** Handoff robustness (§4.3, appendices B.2.1 and B.3): model (senior) and junior alternate at every `\n\n` step end. */
export interface HandoffResult {
  /**
   * `alternate`: strict round-robin at every step end (§4.3); `bernoulli`: a Bernoulli(p) draw at every step end (B.3);
   * `word`: a Bernoulli(p) draw at every word-initial token, K = 32 (the training schedule, §3.3).
   */
  variant: HandoffVariant;
  /** Probability of drawing the senior at each draw (0.5 in the paper); for `alternate`, the probability the senior writes first. */
  p: number;
  samples: number;
  /** Number of distinct token ids the variant hands off at: step ends (text contains "\n\n"), or word-initial tokens for `word`. */
  boundary_tokens: number;
  per_benchmark: Record<string, HandoffBenchmark>;
  macro: { pass_at_k: PassAtK; senior_share: ShareStats; handoffs_per_rollout: number; handoffs_per_rollout_se?: number };
}

export interface HandoffBenchmark {
  pass_at_k: PassAtK;
  /** Per-rollout fraction of response tokens written by the senior: mean and (population) standard deviation over rollouts. */
  senior_share: ShareStats;
  /** Mean number of author changes inside one rollout; 0 means the schedule never handed off (no `\n\n` emitted). */
  handoffs_per_rollout: number;
  /** Bootstrap SE of handoffs_per_rollout over problems (per-problem means resampled; stratified for the macro). */
  handoffs_per_rollout_se?: number;
  /** Fraction of rollouts with an answer the grader could read. */
  answer_present_rate: number;
  /** Bootstrap SE of answer_present_rate over problems (per-problem rates resampled). */
  answer_present_rate_se?: number;
}

export interface ShareStats {
  mean: number;
  std: number;
  /** Bootstrap SE of the mean over problems (per-problem mean shares resampled; stratified for the macro). */
  mean_se?: number;
}

/**
 * Drift (§4.4, appendix B.1): marginal token distributions estimated from each model's own generations
 * (token counts pooled over all benchmarks), compared with the junior's.
 */
export interface DriftResult {
  /** Additive smoothing added to every vocabulary count before normalizing (so log-ratios and KL stay finite). */
  smoothing: number;
  /** Tokens generated by each model (response tokens, stop tokens excluded). */
  tokens: { model: number; junior: number; reference?: number };
  /** KL(p_model || p_junior) over the full vocabulary, in nats, with bootstrap SE over problems. */
  kl: Estimate;
  /** KL(p_reference || p_junior) when a reference model is evaluated. */
  reference_kl?: Estimate;
  /** Minimum count in the junior's own generations for a token to enter the survival curve ("appearing frequently"). */
  min_junior_count: number;
  /** Signed log(p_model(t) / p_junior(t)) for the frequent tokens, largest |log-ratio| first. */
  log_ratio: TokenLogRatio[];
  /** Survival curve of |log-ratio| over the frequent tokens: share of tokens whose |log-ratio| exceeds each threshold. */
  survival: SurvivalPoint[];
  /** Same curve for the reference model, on the same thresholds, when a reference is evaluated. */
  reference_survival?: SurvivalPoint[];
  /**
   * The tokens most displaced by the reference model (highest log(p_ref / p_jun), or largest |log(p_ref / p_jun)|; see
   * `ranking`), and how the model under evaluation
   * moves on them (§4.4, right panel of Figure 4). Absent without a reference model distinct from the junior.
   */
  displaced?: DisplacedTokens;
  /** Tokens the model over-emits most relative to the junior, with raw counts (appendix B.1). */
  over_emitted: OverEmittedToken[];
}

export interface TokenLogRatio {
  id: number;
  /** Decoded token text. */
  text: string;
  log_ratio: number;
}

export interface SurvivalPoint {
  threshold: number;
  /** Fraction of tokens with |log-ratio| > threshold. */
  fraction: number;
  /**
   * Bootstrap SE of the fraction over problems (resampled within benchmarks; the frequent tokens and the thresholds
   * held fixed). Absent in reports made before it existed.
   */
  se?: number;
}

export interface DisplacedTokens {
  /**
   * How many top displaced tokens were taken (500 in the paper; fewer when fewer qualify). Candidates are tokens the
   * reference or the junior emitted at least `min_junior_count` times.
   */
  top: number;
  /**
   * How they were ranked: `signed`, highest log(p_ref / p_jun) first (the paper's footnote 4), or `absolute`, largest
   * |log(p_ref / p_jun)| first. Reports made before the option existed ranked by `absolute` and lack the field.
   */
  ranking?: DisplacedRanking;
  /** Share of those tokens whose model-vs-reference shift opposes the reference's displacement (log(p_model/p_ref) has the opposite sign of log(p_ref/p_jun)). */
  shift_back_share: number;
  /** Spearman ρ between the reference's displacement log(p_ref/p_jun) and the model's shift log(p_model/p_ref) over those tokens, with its two-sided p-value (t approximation). */
  spearman: { rho: number; p: number };
  /** Bootstrap SEs over problems of the shift-back share and of ρ (the whole analysis, top-token choice included, redone per resample). */
  shift_back_share_se?: number;
  spearman_rho_se?: number;
  /** The points of the scatter: reference displacement vs the model's shift. */
  tokens: Array<{ id: number; text: string; reference_log_ratio: number; shift: number }>;
}

export interface OverEmittedToken {
  id: number;
  text: string;
  /** Raw counts in each model's generations. */
  model_count: number;
  junior_count: number;
  reference_count?: number;
  log_ratio: number;
}

/** Junior legibility (§4.5, appendix B.2.2): the junior reads the model's own chain of thought, teacher-forced. */
export interface LegibilityResult {
  per_benchmark: Record<string, { cross_entropy: Estimate; overlap: Estimate; tokens: number }>;
  /** Junior's per-token cross-entropy on the model's response tokens, in nats (lower: more legible); per-problem means averaged over problems. */
  macro: { cross_entropy: Estimate; overlap: Estimate };
}

/** One paired one-sided t-test (§5.3) on per-problem statistics, pooled across benchmarks. */
export interface PairedTest {
  /** What is tested, e.g. `handoff pass@1`, `capability pass@4`, `legibility cross_entropy`, `legibility overlap`. */
  metric: string;
  /** `greater`: H1 mean(model - other) > 0; `less`: H1 mean(model - other) < 0. */
  alternative: 'greater' | 'less';
  /** Mean of the per-problem differences model - other. */
  mean_diff: number;
  /** t statistic; null when every per-problem difference is equal (zero variance), where p is 0 or 1 by the sign. */
  statistic: number | null;
  df: number;
  p: number;
  /** Problems paired (present in both reports, by benchmark and problem id). */
  n: number;
  /**
   * The exact sign test on the same pairs (on 0/1 outcomes, McNemar's exact test on the discordant problems): how many
   * problems the model was higher on, lower on, and its one-sided p. Absent in reports made before it existed.
   */
  sign?: { wins: number; losses: number; p: number };
  /**
   * The test whose p decides: the exact sign test where fewer than EXACT_TEST_BELOW problems differ, else the t-test.
   * Across seeds (`seedLevelTest`) the t-test on the seeds' mean differences, or the sign test where they are all equal.
   */
  decided_by?: 't-test' | 'sign test';
  /** That test's p. */
  p_test?: number;
}

/** A paired test with its p-value after Holm's correction across the report's family of tests. */
export interface CorrectedTest extends PairedTest {
  p_test: number;
  /** Holm-adjusted p across the `family` tests of the report (Holm, 1979). */
  p_holm: number;
  family: number;
}

export interface SignificanceResult {
  /** The model compared against (its report's model id). */
  other: string;
  tests: PairedTest[];
}

/** Per-problem statistics, kept so that two reports can be paired later without re-running either model. */
export interface ProblemStats {
  benchmark: string;
  id: string;
  /** Correct solo samples out of capability.samples. */
  capability_correct?: number;
  /** Per handoff variant evaluated: correct team rollouts out of handoff.samples, and the mean senior share of those rollouts. */
  handoff?: Partial<Record<HandoffVariant, { correct: number; senior_share: number }>>;
  /** Junior's mean per-token cross-entropy on this problem's model responses. */
  cross_entropy?: number;
  /** Mean overlap α over this problem's response positions. */
  overlap?: number;
  /** Response tokens scored for legibility. */
  legibility_tokens?: number;
}

/** Everything the run was configured with, defaults filled in. */
export interface EvalConfig {
  axes: EvalAxis[];
  samples: number;
  problems: number;
  temperature: number;
  top_p: number;
  max_new_tokens: number;
  batch: number;
  /** Whether prompts went through the tokenizer's chat template where it had one (absent in reports made before the option: `off`). */
  chat_template?: 'on' | 'off';
  ks: number[];
  bootstrap: number;
  handoff_variants: HandoffVariant[];
  handoff_p: number;
  displaced_top: number;
  /** How the displaced tokens were ranked (absent in reports made before the option: `absolute`). */
  displaced_ranking?: DisplacedRanking;
  over_emitted_top: number;
  /** Over-emitted tokens must occur at least this often in the model's generations (absent in reports made before it existed). */
  over_emitted_min_count?: number;
  drift_smoothing: number;
  drift_min_junior_count: number;
  /** Responses per problem the junior read for legibility (absent in reports made before it existed). */
  legibility_samples?: number;
}

export interface EvalReport {
  version: typeof EVAL_REPORT_VERSION;
  /** The evaluated model (senior): its directory, or `default:<task>` for the shipped base. */
  model: string;
  /** Junior for handoff, drift and legibility; absent when no axis needs one. */
  junior?: string;
  /** Reference model for drift's displaced-token analysis (e.g. the GRPO senior when the model is TRL). */
  reference?: string;
  benchmarks: BenchmarkInfo[];
  capability?: CapabilityResult;
  /** One entry per handoff variant evaluated. */
  handoff?: HandoffResult[];
  drift?: DriftResult;
  legibility?: LegibilityResult;
  significance?: SignificanceResult;
  per_problem: ProblemStats[];
  config: EvalConfig;
  seed: number;
  /** ISO time the report was written; seconds the evaluation took. */
  created: string;
  wall_seconds: number;
}
