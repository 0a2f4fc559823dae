import type { Trajectory } from '../../core/trajectory/trajectory.ts';
import type { Policy } from '../../native/runtime/policy.ts';
import { Scorer } from '../../native/runtime/scorer.ts';
import type { Device } from '../../native/ort.ts';
import { referenceLogprobs } from './reference-logprobs.ts';

/** Teacher-forced scorers of reference policies, one per policy version (a trained reference is scored as it is now). */
export class ReferenceScorers {
  private readonly byPolicy = new Map<string, { version: number; scorer: Scorer }>();

  /** `rowsPerRun`: sequences per scoring run (as many as the run budget holds when absent); see Scorer's `rowsPerRun`. */
  constructor(
    private readonly threads: number | undefined,
    private readonly rowsPerRun?: number,
    private readonly device?: Device,
  ) {}

  async score(policy: Policy, version: number, trajectories: readonly Trajectory[], temperature: number): Promise<number[][]> {
    let entry = this.byPolicy.get(policy.name);
    if (!entry || entry.version !== version) {
      await entry?.scorer.release();
      entry = { version, scorer: await Scorer.create(policy, { threads: this.threads, device: this.device, rowsPerRun: this.rowsPerRun ?? 'auto' }) };
      this.byPolicy.set(policy.name, entry);
    }
    return referenceLogprobs(entry.scorer, trajectories, temperature);
  }

  async release(): Promise<void> {
    for (const { scorer } of this.byPolicy.values()) await scorer.release();
    this.byPolicy.clear();
  }
}
