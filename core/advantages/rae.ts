import { fail } from '../errors.ts';
import type { AdvantageEstimator } from './estimator.ts';

/** SPIRAL's role-baseline decay (train_spiral.py: `role_baseline_ema_gamma = 0.95`). */
export const RAE_DECAY = 0.95;

/** One role's running baseline: its value and how many rollouts have updated it. */
export interface RaeState {
  readonly baseline: number;
  readonly updates: number;
}

/**
 * Role-conditioned advantage estimation (SPIRAL, arXiv 2506.24119 §3.3): one running baseline per (game, role) — the
 * trainer keeps estimator state per role of the run's one game, checkpointed with the run — because the first and
 * second player face different odds. Rollouts are taken in batch order; each one's advantage is its outcome minus
 * the baseline before it, then b ← decay·b + (1 − decay)·r. The baseline starts at 0, as SPIRAL's EMA does. A rollout
 * whose advantage is exactly 0 leaves the loss (SPIRAL's `filter_zero_adv`, on by default there) when `dropZero`.
 */
export function rae(options: { readonly decay?: number; readonly dropZero?: boolean } = {}): AdvantageEstimator<RaeState> {
  const decay = options.decay ?? RAE_DECAY;
  const dropZero = options.dropZero ?? true;
  if (!(decay > 0 && decay < 1)) fail('CONFIG_INVALID', `rae: decay must lie in (0, 1), got ${decay}`, { decay });
  return {
    name: 'rae',
    initialState: () => ({ baseline: 0, updates: 0 }),
    estimate: (groups, _context, state) => {
      let { baseline, updates } = state;
      const advantages = groups.map((group) =>
        group.map((rollout) => {
          const advantage = rollout.outcome - baseline;
          baseline = decay * baseline + (1 - decay) * rollout.outcome;
          updates += 1;
          return advantage;
        }),
      );
      const dropped = advantages.map((group) => group.map((a) => dropZero && a === 0));
      const zeroVarianceGroups = groups.filter((group) => group.length < 2 || group.every((r) => r.outcome === group[0].outcome)).length;
      return { result: { advantages, dropped, zeroVarianceGroups, metrics: { rae_baseline: baseline } }, state: { baseline, updates } };
    },
  };
}
