import { fail } from '../errors.ts';

/** How α, the weight of step advantages in Tango's blend (Eq. 7), falls over the generator's updates. */
export interface AlphaSchedule {
  /**
   * `exponential` (§3.2: "We apply an exponential decay schedule to α, which is essential to Tango's success"), or
   * `linear` / `cosine` from `start` to `end`, the options of the authors' code.
   */
  readonly kind: 'exponential' | 'linear' | 'cosine';
  /** α at the first generator update (§4: 0.1 for GRPO and RLOO, 0.5 for REINFORCE++). */
  readonly start: number;
  /** α at the last generator update and its floor (§4: "gradually decaying to 1e-3"). */
  readonly end: number;
}

export const ALPHA_SCHEDULES = ['exponential', 'linear', 'cosine'] as const;

/**
 * α at generator update `update` (0-based) of `updates` in the run: exponential α0·exp(−k·t) with k = ln(α0/α_end)/T,
 * linear α0 − (α0 − α_end)·t/T, cosine α_end + (α0 − α_end)·(1 + cos(πt/T))/2, each never below α_end. All reach α_end
 * at t = T; the run's last update is t = T − 1.
 */
export function alphaAt(schedule: AlphaSchedule, update: number, updates: number): number {
  const { kind, start, end } = schedule;
  if (!(start > 0 && start < 1 && end > 0 && end <= start)) fail('CONFIG_INVALID', `alpha schedule: needs 0 < end ≤ start < 1, got start ${start}, end ${end}`, { start, end });
  if (!(Number.isInteger(updates) && updates >= 1)) fail('INPUT_INVALID', `alpha schedule: the run's generator updates must be a whole number ≥ 1, got ${updates}`, { updates });
  if (!(Number.isInteger(update) && update >= 0)) fail('INPUT_INVALID', `alpha schedule: update must be a whole number ≥ 0, got ${update}`, { update });
  const t = update / updates;
  const value =
    kind === 'exponential' ? start * Math.exp(-Math.log(start / end) * t) : kind === 'linear' ? start - (start - end) * t : end + ((start - end) * (1 + Math.cos(Math.PI * t))) / 2;
  return Math.max(end, value);
}
