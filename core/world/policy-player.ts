import { fail } from '../errors.ts';
import type { Rng } from '../rng.ts';
import { cfrPolicy } from './cfr.ts';
import type { PolicyTable } from './exploitability.ts';
import { gameTree } from './game-tree.ts';
import { moveIdOf } from './world-moves.ts';
import type { AnyWorld, PlayerView } from './world.ts';

/**
 * A scripted player that plays a policy table: at its information state, a legal move drawn by the table's
 * probabilities (by move id). It sees what a model in its seat sees, nothing more. A state the table lacks is
 * INPUT_INVALID naming it.
 */
export function policyPlayer<Move>(world: AnyWorld, table: PolicyTable | (() => PolicyTable)): (view: PlayerView<Move>, rng: Rng) => Move {
  let resolved: PolicyTable | undefined;
  return (view, rng) => {
    resolved ??= typeof table === 'function' ? table() : table;
    const probabilities = resolved[view.informationState] ?? fail('INPUT_INVALID', `${world.id}: the policy has no information state ${JSON.stringify(view.informationState)}`, { key: view.informationState });
    let draw = rng.next();
    for (const move of view.legal) if ((draw -= probabilities[moveIdOf(world, move)] ?? 0) < 0) return move;
    return view.legal[view.legal.length - 1];
  };
}

/**
 * A strong reference opponent for any small game: CFR+'s average policy after `iterations` (ours: 1,000), computed on
 * its first move and kept. In a two-player zero-sum game it plays near an equilibrium (its exploitability is in the
 * game's tests).
 */
export function equilibriumPlayer<Move>(world: AnyWorld, iterations = 1000): (view: PlayerView<Move>, rng: Rng) => Move {
  return policyPlayer(world, () => cfrPolicy(gameTree(world), iterations));
}
