import type { Rng } from '../rng.ts';

/** The reference opponent every world game has: a legal move drawn uniformly. */
export function randomLegal<Move>(_state: unknown, _player: string, legal: readonly Move[], rng: Rng): Move {
  return legal[rng.int(legal.length)];
}
