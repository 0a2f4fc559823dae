import { fail } from '../errors.ts';
import type { AdvantageEstimator } from './estimator.ts';

/** The EMA of how many rollouts of each class a batch held; null before the first batch. */
export type ClassCounts = { readonly positive: number; readonly negative: number } | null;

export interface ClassWeightOptions {
  /** The rollout label that names the class: > 0.5 positive (Tango: the judged solution was correct), else negative. */
  readonly label: string;
  /** EMA decay of the class counts (appendix B.1: 0.8). */
  readonly decay: number;
}

/**
 * The per-class scales of one batch: inverse square roots of the EMA counts (+1e-6, as the authors' code), normalised
 * so the batch's rollouts average 1. A class the batch does not hold scales nothing and gets NaN.
 */
export function classScales(counts: { positive: number; negative: number }, ema: { positive: number; negative: number }): { positive: number; negative: number } {
  const positive = 1 / (Math.sqrt(ema.positive) + 1e-6);
  const negative = 1 / (Math.sqrt(ema.negative) + 1e-6);
  const scale = (counts.positive + counts.negative) / (counts.positive * positive + counts.negative * negative);
  return { positive: counts.positive > 0 ? positive * scale : Number.NaN, negative: counts.negative > 0 ? negative * scale : Number.NaN };
}

/**
 * Tango's class-aware reweighting of the verifier's advantages (§3.2, Eq. 9; appendix A): each rollout's advantage is
 * multiplied by s₊ or s₋ by its class, s ∝ 1/√(EMA count of the class), normalised so the batch's scales average 1,
 * so the rarer class is not drowned out (the verifier otherwise collapses to "incorrect" while the generator is mostly
 * wrong). The EMA starts at the first batch's counts, then c ← decay·c + (1 − decay)·n. Metrics: the two scales and
 * the EMA counts.
 */
export function classWeighted<State>(base: AdvantageEstimator<State>, options: ClassWeightOptions): AdvantageEstimator<{ base: State; counts: ClassCounts }> {
  if (!(options.decay >= 0 && options.decay < 1)) fail('CONFIG_INVALID', `class weights: decay must lie in [0, 1), got ${options.decay}`, { decay: options.decay });
  return {
    name: `${base.name}+class-weights`,
    initialState: () => ({ base: base.initialState(), counts: null }),
    estimate: (groups, context, state) => {
      const classes = groups.map((group, g) =>
        group.map((rollout, i) => {
          const value = rollout.labels[options.label];
          if (typeof value !== 'number' || !Number.isFinite(value)) {
            fail('INPUT_INVALID', `class weights: rollout ${i} of group ${g} has no label "${options.label}"`, { group: g, index: i, label: options.label });
          }
          return value > 0.5;
        }),
      );
      const flat = classes.flat();
      const counts = { positive: flat.filter(Boolean).length, negative: flat.filter((c) => !c).length };
      const ema = state.counts === null ? counts : { positive: options.decay * state.counts.positive + (1 - options.decay) * counts.positive, negative: options.decay * state.counts.negative + (1 - options.decay) * counts.negative };
      const scales = classScales(counts, ema);
      const { result, state: next } = base.estimate(groups, context, state.base);
      const advantages = result.advantages.map((group, g) =>
        group.map((advantage, i) => {
          const s = classes[g][i] ? scales.positive : scales.negative;
          return typeof advantage === 'number' ? s * advantage : advantage.map((a) => s * a);
        }),
      );
      return {
        result: {
          ...result,
          advantages,
          metrics: { ...result.metrics, class_weight_correct: scales.positive, class_weight_incorrect: scales.negative, class_ema_correct: ema.positive, class_ema_incorrect: ema.negative },
        },
        state: { base: next, counts: ema },
      };
    },
  };
}
