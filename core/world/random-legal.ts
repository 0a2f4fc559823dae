import type { Rng } from '../rng.ts';
import type { PlayerView } from './world.ts';

/** The reference opponent every world game has: a legal move drawn uniformly. */
export function randomLegal<Move>({ legal }: PlayerView<Move>, rng: Rng): Move {
  return legal[rng.int(legal.length)];
}
