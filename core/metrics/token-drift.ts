import { fail } from '../errors.ts';
import { spearman, type SpearmanResult } from './spearman.ts';

/**
 * Marginal token statistics of tandem RL §4.4 and appendix B.1, on plain arrays indexed by token id. Distributions
 * come from counts of the tokens each model generated; `smoothing` is added to every vocabulary entry before
 * normalizing, so every log-ratio and the KL are finite.
 */

/** Counts of each token id in [0, vocabSize) over some sequences; ids listed in `exclude` (stop tokens) are skipped. */
export function tokenCounts(sequences: Iterable<readonly number[]>, vocabSize: number, exclude: readonly number[] = []): Float64Array {
  const counts = new Float64Array(vocabSize);
  const skip = new Set(exclude);
  for (const seq of sequences) {
    for (const id of seq) {
      if (skip.has(id)) continue;
      if (!Number.isInteger(id) || id < 0 || id >= vocabSize) fail('INPUT_INVALID', `token ${id} is outside the vocabulary [0, ${vocabSize})`);
      counts[id] += 1;
    }
  }
  return counts;
}

/** p(t) = (count(t) + smoothing) / (total + V smoothing). */
export function distributionFromCounts(counts: ArrayLike<number>, smoothing: number): Float64Array {
  if (!(smoothing >= 0)) fail('INPUT_INVALID', `smoothing must be >= 0 (got ${smoothing})`);
  let total = 0;
  for (let i = 0; i < counts.length; i++) total += counts[i];
  const denominator = total + smoothing * counts.length;
  if (!(denominator > 0)) fail('INPUT_INVALID', 'a distribution needs at least one count or a positive smoothing');
  return Float64Array.from(counts, (c) => (c + smoothing) / denominator);
}

function sameLength(p: ArrayLike<number>, q: ArrayLike<number>, what: string): void {
  if (p.length !== q.length) fail('INPUT_INVALID', `${what} needs distributions over one vocabulary (got ${p.length} and ${q.length} entries)`);
}

/** KL(p || q) = Σ p log(p / q) in nats; terms with p = 0 are 0, a term with p > 0 = q is Infinity. */
export function klDivergence(p: ArrayLike<number>, q: ArrayLike<number>): number {
  sameLength(p, q, 'KL');
  let kl = 0;
  for (let i = 0; i < p.length; i++) {
    if (p[i] <= 0) continue;
    if (q[i] <= 0) return Number.POSITIVE_INFINITY;
    kl += p[i] * Math.log(p[i] / q[i]);
  }
  return kl;
}

/** Distribution overlap α = Σ_v min(p(v), q(v)) (tandem RL §4.5): 1 for identical distributions, 0 for disjoint. */
export function overlap(p: ArrayLike<number>, q: ArrayLike<number>): number {
  sameLength(p, q, 'overlap');
  let a = 0;
  for (let i = 0; i < p.length; i++) a += Math.min(p[i], q[i]);
  return a;
}

/** Overlap of two distributions given as log-probabilities (a scorer's rows), starting at `offset` for `length` entries. */
export function overlapOfLogs(logP: ArrayLike<number>, logQ: ArrayLike<number>, offset: number, length: number): number {
  let a = 0;
  for (let i = offset; i < offset + length; i++) a += Math.exp(Math.min(logP[i], logQ[i]));
  return a;
}

/** Signed log(p(t) / q(t)) per token: positive where p over-uses t relative to q. */
export function logRatio(p: ArrayLike<number>, q: ArrayLike<number>): Float64Array {
  sameLength(p, q, 'a log-ratio');
  return Float64Array.from({ length: p.length }, (_, i) => Math.log(p[i] / q[i]));
}

export interface SurvivalPoint {
  threshold: number;
  /** Fraction of the values whose magnitude exceeds the threshold. */
  fraction: number;
}

/** Survival curve of |x|: for each threshold τ, the fraction of values with |x| > τ. */
export function survivalCurve(values: readonly number[], thresholds: readonly number[]): SurvivalPoint[] {
  if (values.length === 0) fail('INPUT_INVALID', 'a survival curve needs at least one value');
  const magnitudes = Float64Array.from(values, Math.abs).sort();
  return thresholds.map((threshold) => {
    // First index whose magnitude exceeds the threshold (binary search over the sorted magnitudes).
    let lo = 0;
    let hi = magnitudes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (magnitudes[mid] > threshold) hi = mid;
      else lo = mid + 1;
    }
    return { threshold, fraction: (magnitudes.length - lo) / magnitudes.length };
  });
}

/** `count` evenly spaced thresholds from 0 to `max` inclusive. */
export function thresholdGrid(max: number, count = 51): number[] {
  if (!(max >= 0) || count < 2) fail('INPUT_INVALID', `a threshold grid needs max >= 0 and at least 2 points (got ${max}, ${count})`);
  return Array.from({ length: count }, (_, i) => (max * i) / (count - 1));
}

export interface DisplacedAnalysis {
  /** Token ids, most displaced first. */
  ids: number[];
  /** log(p_ref / p_jun) of those tokens. */
  displacement: number[];
  /** log(p_model / p_ref) of those tokens: the model's move relative to the reference. */
  shift: number[];
  /** Share of the tokens whose shift has the sign opposite to the displacement (pushed back toward the junior). */
  shiftBackShare: number;
  spearman: SpearmanResult;
}

/**
 * How the most displaced tokens are picked. `signed`: highest log(p_ref / p_jun), the tokens the reference
 * over-emits most (tandem RL §4.4, footnote 4: "tokens with highest log(p_GRPO(t) / p_jun(t))"). `absolute`: largest
 * |log(p_ref / p_jun)|, over- and under-emitted tokens alike.
 */
export type DisplacedRanking = 'signed' | 'absolute';

export const DISPLACED_RANKINGS: readonly DisplacedRanking[] = ['signed', 'absolute'];

/**
 * Tandem RL §4.4, Figure 4 right: the `top` tokens most displaced by a reference model from the junior (by
 * `ranking`, over the tokens in `candidates`), and how the model under evaluation moves on them: the share it shifts
 * back (log(p_model / p_ref) of the opposite sign) and Spearman's ρ between the displacement and that shift
 * (negative: the more the reference drifts, the more the model pulls back). Ties go to the smaller id.
 */
export function displacedTokens(
  pModel: ArrayLike<number>,
  pReference: ArrayLike<number>,
  pJunior: ArrayLike<number>,
  top: number,
  candidates?: readonly number[],
  ranking: DisplacedRanking = 'signed',
): DisplacedAnalysis {
  sameLength(pModel, pReference, 'displaced tokens');
  sameLength(pReference, pJunior, 'displaced tokens');
  const pool = candidates ?? Array.from({ length: pJunior.length }, (_, i) => i);
  const displacementOf = (id: number) => Math.log(pReference[id] / pJunior[id]);
  const rank = ranking === 'signed' ? displacementOf : (id: number) => Math.abs(displacementOf(id));
  const ids = [...pool].sort((a, b) => rank(b) - rank(a) || a - b).slice(0, top);
  const displacement = ids.map(displacementOf);
  const shift = ids.map((id) => Math.log(pModel[id] / pReference[id]));
  const back = ids.filter((_, i) => displacement[i] * shift[i] < 0).length;
  return { ids, displacement, shift, shiftBackShare: ids.length === 0 ? 0 : back / ids.length, spearman: spearman(displacement, shift) };
}

/** Token ids the model over-emits most relative to the junior (largest positive log(p_model / p_jun)), most first; ties by id. */
export function overEmitted(pModel: ArrayLike<number>, pJunior: ArrayLike<number>, top: number, candidates?: readonly number[]): Array<{ id: number; logRatio: number }> {
  sameLength(pModel, pJunior, 'over-emitted tokens');
  const pool = candidates ?? Array.from({ length: pModel.length }, (_, i) => i);
  return pool
    .map((id) => ({ id, logRatio: Math.log(pModel[id] / pJunior[id]) }))
    .filter((t) => t.logRatio > 0)
    .sort((a, b) => b.logRatio - a.logRatio || a.id - b.id)
    .slice(0, top);
}
