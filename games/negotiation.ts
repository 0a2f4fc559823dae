import { randomLegal } from '../core/world/random-legal.ts';
import { worldGame } from '../core/world/world-game.ts';
import type { ParsedMove, PlayerView, World } from '../core/world/world.ts';

/**
 * Simple Negotiation: general-sum bargaining over a pool of 3 wood and 3 gold (after Lewis et al. 2017, "Deal or No
 * Deal?", and SPIRAL's SimpleNegotiation-v1, arXiv 2506.24119 §4, where two players with opposite private values trade
 * wood and gold). Ours: the players split the pool instead of trading endowments. Each values a unit of each resource
 * privately (1-3, drawn by chance) and sees only its own values. In turn a player claims a split (`keep W G`: it keeps
 * W wood and G gold, the other gets the rest) or accepts the claim on the table. An accepted claim pays each player
 * the share of its own total value it receives; no deal within 6 moves pays 0 to both. The prompt's layout is ours.
 */
export type Seat = 'first' | 'second';
export type NegotiationMove = { readonly kind: 'accept' } | { readonly kind: 'keep'; readonly wood: number; readonly gold: number };

export interface NegotiationState {
  /** Units of wood and gold in the pool. */
  readonly pool: readonly [number, number];
  /** Per player (first, second): the value of a unit of wood and of gold. */
  readonly values: readonly [readonly [number, number], readonly [number, number]];
  readonly claims: readonly { readonly by: Seat; readonly wood: number; readonly gold: number }[];
  readonly accepted: boolean;
}

const PLAYERS: readonly Seat[] = ['first', 'second'];
const POOL: readonly [number, number] = [3, 3];
const MOVE_LIMIT = 6;

const indexOf = (seat: Seat) => (seat === 'first' ? 0 : 1);
const moverOf = (state: NegotiationState): Seat => PLAYERS[state.claims.length % 2];
const lastClaim = (state: NegotiationState) => state.claims.at(-1);

/** What `seat` receives of the pool when the last claim is accepted (its own claim, or the rest of the other's). */
function received(state: NegotiationState, seat: Seat): [number, number] {
  const claim = lastClaim(state)!;
  return claim.by === seat ? [claim.wood, claim.gold] : [state.pool[0] - claim.wood, state.pool[1] - claim.gold];
}

function shareOf(state: NegotiationState, seat: Seat, goods: readonly [number, number]): number {
  const [wood, gold] = state.values[indexOf(seat)];
  return (wood * goods[0] + gold * goods[1]) / (wood * state.pool[0] + gold * state.pool[1]);
}

function legalMoves(state: NegotiationState): NegotiationMove[] {
  if (state.accepted || state.claims.length >= MOVE_LIMIT) return [];
  const keeps: NegotiationMove[] = [];
  for (let wood = 0; wood <= state.pool[0]; wood++) for (let gold = 0; gold <= state.pool[1]; gold++) keeps.push({ kind: 'keep', wood, gold });
  return state.claims.length > 0 ? [{ kind: 'accept' }, ...keeps] : keeps;
}

const moveText = (move: NegotiationMove) => (move.kind === 'accept' ? 'accept' : `keep ${move.wood} ${move.gold}`);

function parse(text: string, legal: readonly NegotiationMove[], state: NegotiationState): ParsedMove<NegotiationMove> {
  const keep = /keep\s+(\d+)\s+(\d+)/i.exec(text);
  const accept = /\baccept\b/i.exec(text);
  if (accept && (!keep || accept.index < keep.index)) return legal.some((m) => m.kind === 'accept') ? { kind: 'move', move: { kind: 'accept' } } : { kind: 'illegal', why: 'nothing to accept' };
  if (!keep) return { kind: 'unparseable' };
  const [wood, gold] = [Number(keep[1]), Number(keep[2])];
  if (wood > state.pool[0] || gold > state.pool[1]) return { kind: 'illegal', why: `the pool holds ${state.pool[0]} wood and ${state.pool[1]} gold` };
  return { kind: 'move', move: { kind: 'keep', wood, gold } };
}

function observe(state: NegotiationState, seat: Seat): string {
  const [wood, gold] = state.values[indexOf(seat)];
  const claims = state.claims.map((c) => `${c.by} keeps ${c.wood} ${c.gold}`).join('; ');
  const offer = lastClaim(state);
  const onTable = offer && offer.by !== seat ? `\nIf you accept you get ${state.pool[0] - offer.wood} wood ${state.pool[1] - offer.gold} gold.` : '';
  return `Negotiation: split ${state.pool[0]} wood and ${state.pool[1]} gold. You are ${seat}. You value wood ${wood}, gold ${gold}.\nClaims: ${claims || 'none'}.${onTable}`;
}

export const negotiationWorld: World<NegotiationState, NegotiationMove, Seat> = {
  id: 'negotiation',
  players: PLAYERS,
  rules: 'after Lewis et al. 2017 (Deal or No Deal) and SPIRAL SimpleNegotiation-v1 (arXiv 2506.24119 §4); the split-the-pool rules are ours',
  setup: (rng) => ({ pool: POOL, values: [[1 + rng.int(3), 1 + rng.int(3)], [1 + rng.int(3), 1 + rng.int(3)]], claims: [], accepted: false }),
  toMove: (state) => (state.accepted || state.claims.length >= MOVE_LIMIT ? undefined : moverOf(state)),
  observe,
  informationState: (state, seat) => JSON.stringify({ seat, values: state.values[indexOf(seat)], claims: state.claims }),
  legalMoves,
  legalText: (state) => `${state.claims.length > 0 ? 'accept, or ' : ''}keep W G (W wood and G gold, each 0-${state.pool[0]})`,
  moveText,
  parse,
  apply: (state, move) => (move.kind === 'accept' ? { ...state, accepted: true } : { ...state, claims: [...state.claims, { by: moverOf(state), wood: move.wood, gold: move.gold }] }),
  payoffs: (state) => ({ first: state.accepted ? shareOf(state, 'first', received(state, 'first')) : 0, second: state.accepted ? shareOf(state, 'second', received(state, 'second')) : 0 }),
  labels: (state) => {
    const deal = state.accepted ? 1 : 0;
    return { first: { deal }, second: { deal } };
  },
  utility: { kind: 'general-sum', min: 0, max: 1, par: 0.5 },
  turnLimit: MOVE_LIMIT + 1,
  render: (state, viewer) => ({
    hands: Object.fromEntries(PLAYERS.map((seat) => [seat, viewer === seat || state.accepted || state.claims.length >= MOVE_LIMIT ? [`wood ${state.values[indexOf(seat)][0]}`, `gold ${state.values[indexOf(seat)][1]}`] : ['?', '?']])),
    table: state.claims.map((c) => `${c.by} keeps ${c.wood} wood ${c.gold} gold`),
    caption: state.accepted ? 'deal' : state.claims.length >= MOVE_LIMIT ? 'no deal' : `${moverOf(state)} to move`,
  }),
};

/**
 * A rule-based bargainer (ours): it accepts a claim that leaves it at least half its total value, else claims all of
 * the resource it values more and none of the other (2 wood 1 gold when it values both alike). It reads its own
 * values and the claims from its information state, as a model in its seat is given them.
 */
export function bargainer({ informationState }: PlayerView<NegotiationMove, Seat>): NegotiationMove {
  const seen = JSON.parse(informationState) as { seat: Seat; values: [number, number]; claims: NegotiationState['claims'] };
  const offer = seen.claims.at(-1);
  const [wood, gold] = seen.values;
  const share = (goods: readonly [number, number]) => (wood * goods[0] + gold * goods[1]) / (wood * POOL[0] + gold * POOL[1]);
  if (offer && offer.by !== seen.seat && share([POOL[0] - offer.wood, POOL[1] - offer.gold]) >= 0.5) return { kind: 'accept' };
  if (wood === gold) return { kind: 'keep', wood: 2, gold: 1 };
  return wood > gold ? { kind: 'keep', wood: POOL[0], gold: 0 } : { kind: 'keep', wood: 0, gold: POOL[1] };
}

/** The `negotiation` game: the world with its knobs and its reference opponents (random legal, the bargainer). */
export function negotiationGame(knobs: unknown) {
  return worldGame(negotiationWorld, knobs, { scripted: { random: randomLegal, bargainer } });
}
