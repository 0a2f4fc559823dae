import { Rng, deriveSeed } from '../rng.ts';
import type { AuthorSchedule } from './author-schedule.ts';
import { entryOf } from '../errors.ts';

export interface WordHandoffParams {
  /** Probability that the senior (author 0) is drawn at each redraw. */
  p: number;
  /** Subword-span cap: redraw after K consecutive non-boundary tokens. */
  K: number;
  seed: number;
  /** Tandem senior and junior, as indices into the co-decoded policies. */
  senior?: number;
  junior?: number;
}

/**
 * Tandem RL word-level handoff (Algorithm 1): the first author is Bernoulli(p); after each emitted token the
 * author is redrawn if the token is in the word-boundary set or the span counter reached K, else kept and the
 * counter grows. Coins come from a per-row RNG derived from (seed, row), so a replay is exact.
 */
export function wordHandoff(boundary: ReadonlySet<number> | ((token: number) => boolean), params: WordHandoffParams): AuthorSchedule {
  const isBoundary = typeof boundary === 'function' ? boundary : (token: number) => boundary.has(token);
  const senior = params.senior ?? 0;
  const junior = params.junior ?? 1;
  const rows = new Map<number, { rng: Rng; author: number; span: number }>();
  const draw = (rng: Rng) => (rng.bernoulli(params.p) ? senior : junior);
  return {
    first(row) {
      const rng = new Rng(deriveSeed(params.seed, row));
      const author = draw(rng);
      rows.set(row, { rng, author, span: 0 });
      return author;
    },
    next(row, token) {
      const state = entryOf(rows, row, 'the handoff state (first() starts it) of row');
      if (isBoundary(token) || state.span >= params.K) {
        state.author = draw(state.rng);
        state.span = 0;
      } else {
        state.span += 1;
      }
      return state.author;
    },
  };
}
