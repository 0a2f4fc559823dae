import { equilibriumPlayer } from '../core/world/policy-player.ts';
import { randomLegal } from '../core/world/random-legal.ts';
import { worldGame } from '../core/world/world-game.ts';
import type { ChanceOutcome, World } from '../core/world/world.ts';

/**
 * Liar's Dice at a small size (after OpenSpiel's `liars_dice`; TextArena's LiarsDice-v0): each of two players rolls
 * one die of FACES faces, seen by itself only. In turn they bid `bid Q F`: at least Q of the two dice show F, each bid
 * higher than the last (more dice, or as many of a higher face); instead of bidding, a player may call the last bid a
 * lie (`liar`). If the bid holds, the caller loses (−1, the bidder +1); if not, the bidder loses. No face is wild
 * (ours). The prompt's layout is ours.
 */
export type Seat = 'first' | 'second';
export type LiarsMove = { readonly quantity: number; readonly face: number } | 'liar';

export interface LiarsState {
  readonly dice: readonly number[];
  /** Bids so far, as indices into BIDS. */
  readonly bids: readonly number[];
  readonly called: boolean;
}

/** Faces of each die (ours: 4 keeps the whole game at about 8,000 nodes, exact measures included). */
export const FACES = 4;
const PLAYERS: readonly Seat[] = ['first', 'second'];
const BIDS = [1, 2].flatMap((quantity) => Array.from({ length: FACES }, (_, f) => ({ quantity, face: f + 1 })));

const bidText = (bid: { quantity: number; face: number }) => `bid ${bid.quantity} ${bid.face}`;

function roll(state: LiarsState): ChanceOutcome<LiarsState>[] {
  if (state.dice.length === 2) return [];
  return Array.from({ length: FACES }, (_, f) => ({ id: String(f + 1), probability: 1 / FACES, state: { ...state, dice: [...state.dice, f + 1] } }));
}

const mover = (state: LiarsState): Seat => PLAYERS[state.bids.length % 2];

function legalMoves(state: LiarsState): LiarsMove[] {
  if (state.dice.length < 2 || state.called) return [];
  const last = state.bids.at(-1) ?? -1;
  return [...BIDS.slice(last + 1), ...(state.bids.length > 0 ? ['liar' as const] : [])];
}

function observe(state: LiarsState, seat: Seat): string {
  const bids = state.bids.map((b, i) => `${PLAYERS[i % 2]} bids ${BIDS[b].quantity} ${BIDS[b].face}`).join(', ');
  return `Liar's dice: one ${FACES}-sided die each. Bid "bid Q F" (at least Q of both dice show F), higher each time, or call "liar". You are ${seat}. Your die: ${state.dice[seat === 'first' ? 0 : 1]}.\nBids: ${bids || 'none'}.`;
}

/** The first player's payoff once a bid has been called. */
function firstPayoff(state: LiarsState): number {
  const bid = BIDS[state.bids[state.bids.length - 1]];
  const holds = state.dice.filter((d) => d === bid.face).length >= bid.quantity;
  const bidder = (state.bids.length - 1) % 2;
  const bidderWins = holds ? 1 : -1;
  return bidder === 0 ? bidderWins : -bidderWins;
}

export const liarsDiceWorld: World<LiarsState, LiarsMove, Seat> = {
  id: 'liars-dice',
  players: PLAYERS,
  rules: "Liar's Dice, two players and one die each (OpenSpiel liars_dice; TextArena LiarsDice-v0); no wild face (ours)",
  setup: () => ({ dice: [], bids: [], called: false }),
  chanceOutcomes: roll,
  toMove: (state) => (legalMoves(state).length === 0 ? undefined : mover(state)),
  observe,
  informationState: (state, seat) => `${seat}:${state.dice[seat === 'first' ? 0 : 1]}:${state.bids.join(',')}`,
  legalMoves,
  moveText: (move) => (move === 'liar' ? 'liar' : bidText(move)),
  apply: (state, move) => (move === 'liar' ? { ...state, called: true } : { ...state, bids: [...state.bids, BIDS.findIndex((b) => b.quantity === move.quantity && b.face === move.face)] }),
  payoffs: (state) => {
    const first = firstPayoff(state);
    return { first, second: -first };
  },
  utility: { kind: 'zero-sum', min: -1, max: 1 },
  turnLimit: BIDS.length + 1,
  render: (state, viewer) => ({
    hands: Object.fromEntries(PLAYERS.map((seat, i) => [seat, [state.called || viewer === seat ? String(state.dice[i]) : '?']])),
    table: state.bids.map((b, i) => `${PLAYERS[i % 2]} bids ${BIDS[b].quantity} ${BIDS[b].face}`),
    caption: state.called ? `first ${firstPayoff(state) > 0 ? 'wins' : 'loses'}` : `${mover(state)} to bid`,
  }),
};

/** CFR+ iterations of the `nash` opponent (ours): 300 leave an exploitability near 1e-4 (tested), in seconds. */
export const LIARS_DICE_CFR_ITERATIONS = 300;

/** The `liars-dice` game: the world, its knobs and its reference opponents (random, and `nash`: CFR+'s average policy). */
export function liarsDiceGame(knobs: unknown) {
  return worldGame(liarsDiceWorld, knobs, { scripted: { random: randomLegal, nash: equilibriumPlayer(liarsDiceWorld, LIARS_DICE_CFR_ITERATIONS) } });
}
