/** Where an experiment stands, in rollouts (sampled responses): the unit training and evaluation both spend. */
export interface ExperimentProgress {
  phase: string;
  done: number;
  total: number;
}

/**
 * Overall progress across phases of unequal cost: each phase is weighed by the rollouts it samples, and reports
 * its own fraction done; the sum is monotone and ends at `total`.
 */
export class ProgressTracker {
  private readonly weights: Map<string, number>;
  private readonly fractions = new Map<string, number>();
  readonly total: number;

  constructor(
    phases: ReadonlyArray<readonly [phase: string, rollouts: number]>,
    private readonly listener?: (progress: ExperimentProgress) => void,
  ) {
    this.weights = new Map(phases);
    this.total = phases.reduce((sum, [, w]) => sum + w, 0);
  }

  update(phase: string, fraction: number): void {
    const weight = this.weights.get(phase);
    if (weight === undefined) throw new Error(`unknown experiment phase "${phase}"`);
    const clamped = Math.min(1, Math.max(this.fractions.get(phase) ?? 0, fraction));
    this.fractions.set(phase, clamped);
    this.listener?.({ phase, done: this.done(), total: this.total });
  }

  private done(): number {
    let done = 0;
    for (const [phase, fraction] of this.fractions) done += fraction * (this.weights.get(phase) ?? 0);
    return Math.round(done);
  }
}
