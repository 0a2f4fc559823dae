import type { AdvantageEstimator } from '../advantages/estimator.ts';

/** The label a world game's reward rule puts on a forfeiting player's rollout: where its forfeiting turn's tokens start. */
export const FORFEIT_START_LABEL = 'forfeit_start';

/**
 * Forfeit credited to the move that forfeited (ours): a rollout that ended in its player's illegal move keeps the
 * estimator's advantage on that move's tokens only, and 0 on its earlier moves, which broke no rule and whose game never
 * finished. SPIRAL pays every move of the forfeiting player the penalty; with a base that forfeits most games, that
 * spreads the one wrong move's signal over every right one before it.
 */
export function creditForfeitToMove<State>(base: AdvantageEstimator<State>): AdvantageEstimator<State> {
  return {
    name: `${base.name}+forfeit-move`,
    initialState: base.initialState,
    estimate: (groups, context, state) => {
      const { result, state: next } = base.estimate(groups, context, state);
      const advantages = result.advantages.map((group, g) =>
        group.map((advantage, i) => {
          const rollout = groups[g][i];
          const start = rollout.labels[FORFEIT_START_LABEL];
          if (start === undefined || start < 0) return advantage;
          return Array.from({ length: rollout.tokens }, (_, t) => (t < start ? 0 : typeof advantage === 'number' ? advantage : advantage[t]));
        }),
      );
      return { result: { ...result, advantages }, state: next };
    },
  };
}
