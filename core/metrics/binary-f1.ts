/** Counts of a binary judge against the truth, "positive" meaning judged (or truly) correct. */
export interface Confusion {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
}

export const emptyConfusion = (): Confusion => ({ tp: 0, fp: 0, fn: 0, tn: 0 });

export function addJudgment(into: Confusion, truth: boolean, predicted: boolean): void {
  if (predicted && truth) into.tp++;
  else if (predicted) into.fp++;
  else if (truth) into.fn++;
  else into.tn++;
}

export function addConfusion(into: Confusion, other: Confusion): void {
  into.tp += other.tp;
  into.fp += other.fp;
  into.fn += other.fn;
  into.tn += other.tn;
}

/** tp / (tp + fp); null when nothing was judged positive. */
export function precision(c: Confusion): number | null {
  return c.tp + c.fp === 0 ? null : c.tp / (c.tp + c.fp);
}

/** tp / (tp + fn); null when nothing is truly positive. */
export function recall(c: Confusion): number | null {
  return c.tp + c.fn === 0 ? null : c.tp / (c.tp + c.fn);
}

/** 2·tp / (2·tp + fp + fn), the harmonic mean of precision and recall; null when there is no positive either way. */
export function f1(c: Confusion): number | null {
  const denominator = 2 * c.tp + c.fp + c.fn;
  return denominator === 0 ? null : (2 * c.tp) / denominator;
}
