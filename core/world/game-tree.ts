import { fail } from '../errors.ts';
import { Rng } from '../rng.ts';
import { chanceAt, informationStateOf, moveIdOf } from './world-moves.ts';
import type { AnyWorld, MoveRewards } from './world.ts';

/** A node of a world's whole game tree: a chance event, a player's decision, or an end with each player's payoff. */
export type TreeNode = ChanceNode | DecisionNode | TerminalNode;

export interface ChanceNode {
  readonly kind: 'chance';
  readonly outcomes: readonly { readonly id: string; readonly probability: number; readonly child: TreeNode }[];
}

export interface DecisionNode {
  readonly kind: 'decision';
  /** The mover's index in `world.players`. */
  readonly player: number;
  /** Its information state: the key of every node the mover cannot tell apart from this one. */
  readonly key: string;
  readonly state: unknown;
  /** Per legal move (in `legalMoves` order): its id, the rewards the move pays each player on the way, and where it leads. */
  readonly moves: readonly { readonly id: string; readonly rewards: readonly number[]; readonly child: TreeNode }[];
}

export interface TerminalNode {
  readonly kind: 'terminal';
  /** Each player's payoff (0 for all where the turn limit stopped the game). */
  readonly payoffs: readonly number[];
}

/** One information set: its key, whose it is, the move ids it offers, and one of its states (every one prompts alike). */
export interface InformationSet {
  readonly key: string;
  readonly player: string;
  readonly moves: readonly string[];
  readonly state: unknown;
}

export interface GameTree {
  readonly world: AnyWorld;
  readonly root: TreeNode;
  readonly nodes: number;
  /** Every information set, in the order first reached (depth first, moves in order). */
  readonly informationSets: readonly InformationSet[];
}

/** The largest tree built unless the caller allows more (ours: Leduc Hold'em's is about 10,000 nodes, TicTacToe's 550,000). */
export const TREE_NODE_LIMIT = 200_000;

/** The `reason` of the refusal of a world whose setup draws chance. */
export const SETUP_CHANCE = 'setup-chance';

/** How far a refused tree is counted to name its size: this many times the limit (ours). */
const COUNT_BEYOND = 20;

/** An Rng that notes any draw: setup must draw nothing for its chance to be enumerable. */
function watchedRng(): { rng: Rng; drew: () => boolean } {
  let drew = false;
  const rng = new Proxy(new Rng(0), {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        drew = true;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { rng, drew: () => drew };
}

function rewardVector(world: AnyWorld, rewards: MoveRewards<string> | undefined, mover: string): number[] {
  const players: readonly string[] = world.players;
  if (rewards === undefined) return players.map(() => 0);
  if (typeof rewards === 'number') return players.map((p) => (p === mover ? rewards : 0));
  return players.map((p) => (rewards as Record<string, number>)[p] ?? 0);
}

/**
 * The world's whole game tree from its start, as a match plays it: chance events by `chanceOutcomes`, each legal
 * move, the turn limit stopping a game as a draw, each move's rewards on its edge. Needs a setup that draws no chance
 * (chance in `chanceOutcomes`, where it can be enumerated) and an information state that names its player's moves;
 * a tree of more than `maxNodes` nodes is WORLD_TOO_LARGE, naming how many it has (counted up to 20 times the limit).
 */
export function gameTree(world: AnyWorld, maxNodes = TREE_NODE_LIMIT): GameTree {
  const players: readonly string[] = world.players;
  const watched = watchedRng();
  const start = world.setup(watched.rng);
  if (watched.drew()) fail('WORLD_INVALID', `game "${world.id}": its setup draws chance from the RNG, which exact measures cannot enumerate; put the game's chance in chanceOutcomes`, { game: world.id, reason: SETUP_CHANCE });
  const sets = new Map<string, InformationSet>();
  let nodes = 0;
  const count = () => {
    nodes += 1;
    if (nodes > maxNodes) {
      const size = countNodes(world, start, maxNodes * COUNT_BEYOND);
      const named = size > maxNodes * COUNT_BEYOND ? `more than ${maxNodes * COUNT_BEYOND}` : String(size);
      fail('WORLD_TOO_LARGE', `game "${world.id}": its game tree has ${named} nodes, over the ${maxNodes} that exact measures enumerate`, { game: world.id, nodes: size, limit: maxNodes });
    }
  };
  const build = (state: unknown, moves: number): TreeNode => {
    count();
    const outcomes = chanceAt(world, state);
    if (outcomes.length > 0) return { kind: 'chance', outcomes: outcomes.map((o) => ({ id: o.id, probability: o.probability, child: build(o.state, moves) })) };
    const mover = world.toMove(state) as string | undefined;
    if (mover === undefined) {
      const payoffs = world.payoffs(state) as Record<string, number>;
      return { kind: 'terminal', payoffs: players.map((p) => payoffs[p]) };
    }
    if (moves >= world.turnLimit) return { kind: 'terminal', payoffs: players.map(() => 0) };
    const key = informationStateOf(world, state, mover);
    const legal = world.legalMoves(state);
    const ids = legal.map((move: unknown) => moveIdOf(world, move));
    const known = sets.get(key);
    if (!known) sets.set(key, { key, player: mover, moves: ids, state });
    else if (known.player !== mover || known.moves.join('\u0000') !== ids.join('\u0000')) {
      fail('WORLD_INVALID', `game "${world.id}": information state ${JSON.stringify(key)} is shared by states that differ in ${known.player !== mover ? `their mover (${known.player}, ${mover})` : `their legal moves (${known.moves.join(', ')} | ${ids.join(', ')})`}: a player must be able to tell them apart`, { game: world.id, key });
    }
    return {
      kind: 'decision',
      player: players.indexOf(mover),
      key,
      state,
      moves: legal.map((move: unknown, i: number) => {
        const after = world.apply(state, move);
        return { id: ids[i], rewards: rewardVector(world, world.moveReward?.(state, move, after, mover), mover), child: build(after, moves + 1) };
      }),
    };
  };
  const root = build(start, 0);
  return { world, root, nodes, informationSets: [...sets.values()] };
}

/** The number of nodes of the tree from `state`, counted up to just past `cap` (nothing kept). */
function countNodes(world: AnyWorld, state: unknown, cap: number): number {
  let nodes = 0;
  const walk = (at: unknown, moves: number): void => {
    if (++nodes > cap) return;
    const outcomes = chanceAt(world, at);
    if (outcomes.length > 0) {
      for (const o of outcomes) walk(o.state, moves);
      return;
    }
    if (world.toMove(at) === undefined || moves >= world.turnLimit) return;
    for (const move of world.legalMoves(at)) {
      if (nodes > cap) return;
      walk(world.apply(at, move), moves + 1);
    }
  };
  walk(state, 0);
  return nodes;
}
