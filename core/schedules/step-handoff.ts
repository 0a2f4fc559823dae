import { Rng, deriveSeed } from '../rng.ts';
import type { AuthorSchedule } from './author-schedule.ts';
import { entryOf } from '../errors.ts';

export type StepHandoffMode = 'alternate' | 'bernoulli';

export interface StepHandoffParams {
  /** `alternate`: strict round-robin at every step end; `bernoulli`: a fresh Bernoulli(p) draw at every step end. */
  mode: StepHandoffMode;
  /** Probability of drawing author 0 at each draw (the first author when `first` is absent; every step end in `bernoulli`). */
  p?: number;
  seed: number;
  /** Author of the first token; drawn by Bernoulli(p) when absent. */
  first?: 0 | 1;
}

/** Tandem RL appendix B.3: a fair coin at every step end. */
export const STEP_HANDOFF_DEFAULT_P = 0.5;

/**
 * Reasoning-step handoff between two co-decoding authors (tandem RL §4.3 and appendix B.3): the author changes only
 * after a token that ends a step (one whose text contains "\n\n"). Coins come from a per-row RNG derived from
 * (seed, row), so a replay is exact.
 */
export function stepHandoff(boundary: ReadonlySet<number> | ((token: number) => boolean), params: StepHandoffParams): AuthorSchedule {
  const endsStep = typeof boundary === 'function' ? boundary : (token: number) => boundary.has(token);
  const p = params.p ?? STEP_HANDOFF_DEFAULT_P;
  const rows = new Map<number, { rng: Rng; author: number }>();
  const draw = (rng: Rng) => (rng.bernoulli(p) ? 0 : 1);
  return {
    first(row) {
      const rng = new Rng(deriveSeed(params.seed, row));
      const author = params.first ?? draw(rng);
      rows.set(row, { rng, author });
      return author;
    },
    next(row, token) {
      const state = entryOf(rows, row, 'the handoff state (first() starts it) of row');
      if (endsStep(token)) state.author = params.mode === 'alternate' ? 1 - state.author : draw(state.rng);
      return state.author;
    },
  };
}
