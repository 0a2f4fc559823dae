import { bootstrap, bootstrapEach } from '../../core/metrics/bootstrap.ts';
import { displacedTokens, distributionFromCounts, klDivergence, logRatio, overEmitted, survivalCurve, thresholdGrid, type DisplacedRanking } from '../../core/metrics/token-drift.ts';
import { deriveSeed } from '../../core/rng.ts';
import type { DriftResult, Estimate, SurvivalPoint } from './report-types.ts';

/** Defaults of the drift axis. The paper names the top-500 displaced tokens; the others it leaves open. */
export const DRIFT_DEFAULTS = {
  /** Tokens most displaced by the reference (tandem RL §4.4: "the 500 tokens with the largest GRPO drift"). */
  displacedTop: 500,
  /** Ranked by signed log(p_ref / p_jun), highest first (§4.4, footnote 4); `absolute` ranks by |log-ratio|. */
  displacedRanking: 'signed' as DisplacedRanking,
  /** Over-emitted tokens listed (appendix B.1 shows a word cloud; a table needs a cut). */
  overEmittedTop: 20,
  /** Over-emitted tokens must occur this often in the model's own outputs (appendix B.1's tokens occur 50-400 times; singletons are noise). */
  overEmittedMinCount: 5,
  /** Add-one-half smoothing of every vocabulary count (so unseen tokens keep a finite log-ratio). */
  smoothing: 0.5,
  /** "Tokens appearing frequently in the junior's own outputs" (§4.4): at least this many junior occurrences. */
  minJuniorCount: 5,
  /** Points on the survival curve's threshold grid. */
  survivalPoints: 51,
} as const;

/** Token counts of one problem's responses: sparse, id -> count. */
export type ProblemCounts = Map<number, number>;

export function problemCounts(responses: Iterable<readonly number[]>, exclude: ReadonlySet<number>): ProblemCounts {
  const counts: ProblemCounts = new Map();
  for (const tokens of responses) for (const id of tokens) if (!exclude.has(id)) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

export interface DriftInput {
  vocabSize: number;
  /** Per benchmark, per problem: token counts of the model's, the junior's and (optionally) the reference's own responses. */
  model: ProblemCounts[][];
  junior: ProblemCounts[][];
  reference?: ProblemCounts[][];
  decode: (id: number) => string;
  smoothing: number;
  minJuniorCount: number;
  displacedTop: number;
  displacedRanking: DisplacedRanking;
  overEmittedTop: number;
  overEmittedMinCount: number;
  resamples: number;
  seed: number;
}

function pooled(perBenchmark: readonly (readonly ProblemCounts[])[], indices: readonly Int32Array[] | null, vocabSize: number): Float64Array {
  const total = new Float64Array(vocabSize);
  for (const [b, problems] of perBenchmark.entries()) {
    const idx = indices ? indices[b] : Int32Array.from(problems.keys());
    for (let i = 0; i < idx.length; i++) for (const [id, c] of problems[idx[i]]) total[id] += c;
  }
  return total;
}

/**
 * KL(p_a || p_b) of the pooled, smoothed marginals and the survival curve of |log(p_a / p_b)| over `tokens` at
 * `thresholds` (empty without tokens), every number with its SE over problems resampled within benchmarks (a and b
 * paired by problem; the tokens and thresholds stay those of the observed data). One pass of resamples serves both.
 */
function klAndSurvival(a: ProblemCounts[][], b: ProblemCounts[][], tokens: readonly number[], thresholds: readonly number[], input: DriftInput, seed: number): { kl: Estimate; survival: SurvivalPoint[] } {
  const statistic = (indices: readonly Int32Array[]) => {
    const pa = distributionFromCounts(pooled(a, indices, input.vocabSize), input.smoothing);
    const pb = distributionFromCounts(pooled(b, indices, input.vocabSize), input.smoothing);
    const curve = tokens.length > 0 ? survivalCurve(tokens.map((id) => Math.log(pa[id] / pb[id])), thresholds).map((point) => point.fraction) : [];
    return [klDivergence(pa, pb), ...curve];
  };
  const [kl, ...curve] = bootstrapEach(
    a.map((problems) => problems.length),
    statistic,
    { resamples: input.resamples, seed },
  );
  return { kl, survival: curve.map((e, i) => ({ threshold: thresholds[i], fraction: e.value, se: e.se })) };
}

/**
 * Tandem RL §4.4 and appendix B.1 from token counts: marginal distributions of each model's own generations,
 * signed log-ratios to the junior, full-vocabulary KL with a bootstrap SE, the survival curve of |log-ratio| over
 * tokens frequent in the junior's outputs (a bootstrap SE at every point), the reference's most displaced tokens with the model's shift-back share
 * and Spearman ρ, and the most over-emitted tokens with their counts.
 */
export function driftFrom(input: DriftInput): DriftResult {
  const V = input.vocabSize;
  const countsModel = pooled(input.model, null, V);
  const countsJunior = pooled(input.junior, null, V);
  const countsReference = input.reference ? pooled(input.reference, null, V) : undefined;
  const pModel = distributionFromCounts(countsModel, input.smoothing);
  const pJunior = distributionFromCounts(countsJunior, input.smoothing);
  const pReference = countsReference ? distributionFromCounts(countsReference, input.smoothing) : undefined;
  const lrModel = logRatio(pModel, pJunior);
  const lrReference = pReference ? logRatio(pReference, pJunior) : undefined;
  const sum = (c: Float64Array) => c.reduce((a, x) => a + x, 0);

  const frequent = Array.from({ length: V }, (_, id) => id).filter((id) => countsJunior[id] >= input.minJuniorCount);
  const seen = Array.from({ length: V }, (_, id) => id).filter((id) => countsModel[id] > 0 || countsJunior[id] > 0 || (countsReference?.[id] ?? 0) > 0);
  const maxAbs = Math.max(0, ...frequent.map((id) => Math.abs(lrModel[id])), ...(lrReference ? frequent.map((id) => Math.abs(lrReference[id])) : []));
  const thresholds = thresholdGrid(maxAbs, DRIFT_DEFAULTS.survivalPoints);
  const model = klAndSurvival(input.model, input.junior, frequent, thresholds, input, deriveSeed(input.seed, 1));
  const reference = input.reference ? klAndSurvival(input.reference, input.junior, frequent, thresholds, input, deriveSeed(input.seed, 2)) : undefined;

  const result: DriftResult = {
    smoothing: input.smoothing,
    tokens: { model: sum(countsModel), junior: sum(countsJunior), ...(countsReference ? { reference: sum(countsReference) } : {}) },
    kl: model.kl,
    ...(reference ? { reference_kl: reference.kl } : {}),
    min_junior_count: input.minJuniorCount,
    log_ratio: seen.map((id) => ({ id, text: input.decode(id), log_ratio: lrModel[id] })).sort((a, b) => Math.abs(b.log_ratio) - Math.abs(a.log_ratio) || a.id - b.id),
    survival: model.survival,
    ...(reference && frequent.length > 0 ? { reference_survival: reference.survival } : {}),
    over_emitted: overEmitted(
      pModel,
      pJunior,
      input.overEmittedTop,
      seen.filter((id) => countsModel[id] >= Math.max(1, input.overEmittedMinCount)),
    ).map(({ id, logRatio: lr }) => ({
      id,
      text: input.decode(id),
      model_count: countsModel[id],
      junior_count: countsJunior[id],
      ...(countsReference ? { reference_count: countsReference[id] } : {}),
      log_ratio: lr,
    })),
  };
  // Displacement candidates: tokens the reference or the junior uses at least minJuniorCount times, so a token seen
  // once (a log-ratio of pure smoothing noise) cannot crowd the top list.
  const displaceable = countsReference ? seen.filter((id) => Math.max(countsReference[id], countsJunior[id]) >= input.minJuniorCount) : [];
  const referenceCounts = input.reference;
  if (pReference && referenceCounts && displaceable.length >= 3) {
    const displaced = displacedTokens(pModel, pReference, pJunior, input.displacedTop, displaceable, input.displacedRanking);
    // The analysis redone on problems resampled within benchmarks, over the same candidate tokens.
    const resampled = (pick: (d: ReturnType<typeof displacedTokens>) => number, seed: number) =>
      bootstrap(
        input.model.map((problems) => problems.length),
        (indices) => {
          const dist = (counts: ProblemCounts[][]) => distributionFromCounts(pooled(counts, indices, V), input.smoothing);
          return pick(displacedTokens(dist(input.model), dist(referenceCounts), dist(input.junior), input.displacedTop, displaceable, input.displacedRanking));
        },
        { resamples: input.resamples, seed },
      ).se;
    const rhoSe = resampled((d) => d.spearman.rho, deriveSeed(input.seed, 4));
    result.displaced = {
      top: displaced.ids.length,
      ranking: input.displacedRanking,
      shift_back_share: displaced.shiftBackShare,
      spearman: { rho: displaced.spearman.rho, p: displaced.spearman.p },
      shift_back_share_se: resampled((d) => d.shiftBackShare, deriveSeed(input.seed, 3)),
      ...(Number.isFinite(rhoSe) ? { spearman_rho_se: rhoSe } : {}),
      tokens: displaced.ids.map((id, i) => ({ id, text: input.decode(id), reference_log_ratio: displaced.displacement[i], shift: displaced.shift[i] })),
    };
  }
  return result;
}
