import { randomLegal } from '../core/world/random-legal.ts';
import { worldGame } from '../core/world/world-game.ts';
import type { PlayerView, World } from '../core/world/world.ts';

/**
 * Trade, after SPIRAL's SimpleNegotiation-v1 (arXiv 2506.24119 §4; TextArena): each player holds an endowment of wood,
 * stone and gold and values each unit privately (both drawn by chance; each sees only its own). In turn, for 6 moves, a
 * player offers some of its own endowment for some of the other's (`1 wood for 2 gold`: ratios 1:1, 1:2 and 2:1),
 * accepts the offer on the table (the goods change hands), or passes. A player's payoff is the change in the value of
 * its holdings over their value at the start: general-sum, a win a gain (as SPIRAL counts one). Ours: the three
 * resources, the ratios and the length.
 */
export type Seat = 'first' | 'second';
export type TradeMove = { readonly kind: 'pass' } | { readonly kind: 'accept' } | { readonly kind: 'offer'; readonly give: Goods; readonly get: Goods };
export interface Goods {
  readonly amount: number;
  readonly resource: number;
}

export interface TradeState {
  /** Per player: units held of wood, stone and gold. */
  readonly holdings: readonly (readonly number[])[];
  readonly start: readonly (readonly number[])[];
  /** Per player: the value of a unit of each resource. */
  readonly values: readonly (readonly number[])[];
  readonly offer?: { readonly by: number; readonly give: Goods; readonly get: Goods };
  readonly moves: number;
}

const PLAYERS: readonly Seat[] = ['first', 'second'];
const RESOURCES = ['wood', 'stone', 'gold'] as const;
const RATIOS = [[1, 1], [1, 2], [2, 1]] as const;
const MOVES = 6;

const mover = (state: TradeState) => state.moves % 2;
const goods = (g: Goods) => `${g.amount} ${RESOURCES[g.resource]}`;
const worth = (values: readonly number[], held: readonly number[]) => held.reduce((sum, n, r) => sum + n * values[r], 0);

function legalMoves(state: TradeState): TradeMove[] {
  if (state.moves >= MOVES) return [];
  const me = mover(state);
  const held = state.holdings[me];
  const moves: TradeMove[] = [{ kind: 'pass' }];
  const offer = state.offer;
  if (offer && offer.by !== me && held[offer.get.resource] >= offer.get.amount) moves.push({ kind: 'accept' });
  for (let give = 0; give < RESOURCES.length; give++) {
    for (let get = 0; get < RESOURCES.length; get++) {
      if (give === get) continue;
      for (const [g, t] of RATIOS) if (held[give] >= g) moves.push({ kind: 'offer', give: { amount: g, resource: give }, get: { amount: t, resource: get } });
    }
  }
  return moves;
}

const moveText = (move: TradeMove) => (move.kind === 'offer' ? `${goods(move.give)} for ${goods(move.get)}` : move.kind);

function apply(state: TradeState, move: TradeMove): TradeState {
  const me = mover(state);
  if (move.kind === 'pass') return { ...state, offer: undefined, moves: state.moves + 1 };
  if (move.kind === 'offer') return { ...state, offer: { by: me, give: move.give, get: move.get }, moves: state.moves + 1 };
  const { by, give, get } = state.offer!;
  const holdings = state.holdings.map((held, p) => held.map((n, r) => n + (r === give.resource ? (p === by ? -give.amount : give.amount) : 0) + (r === get.resource ? (p === by ? get.amount : -get.amount) : 0)));
  return { ...state, holdings, offer: undefined, moves: state.moves + 1 };
}

function observe(state: TradeState, seat: Seat): string {
  const me = PLAYERS.indexOf(seat);
  const held = RESOURCES.map((r, i) => `${r} ${state.holdings[me][i]}`).join(', ');
  const values = RESOURCES.map((r, i) => `${r} ${state.values[me][i]}`).join(', ');
  const offer = state.offer ? `${PLAYERS[state.offer.by]} offers ${goods(state.offer.give)} for ${goods(state.offer.get)}` : 'nothing';
  return `Trade: offer some of yours for some of theirs, accept, or pass; ${MOVES - state.moves} moves left. You are ${seat}. You hold ${held}; a unit is worth to you ${values}.\nOn the table: ${offer}.`;
}

const gain = (state: TradeState, p: number) => (worth(state.values[p], state.holdings[p]) - worth(state.values[p], state.start[p])) / worth(state.values[p], state.start[p]);

export const tradeWorld: World<TradeState, TradeMove, Seat> = {
  id: 'trade',
  players: PLAYERS,
  rules: "after SPIRAL's SimpleNegotiation-v1 (arXiv 2506.24119 §4); resources, ratios and length ours",
  setup: (rng) => {
    const holdings = PLAYERS.map(() => RESOURCES.map(() => 1 + rng.int(3)));
    return { holdings, start: holdings, values: PLAYERS.map(() => RESOURCES.map(() => 1 + rng.int(5))), moves: 0 };
  },
  toMove: (state) => (state.moves >= MOVES ? undefined : PLAYERS[mover(state)]),
  observe,
  informationState: (state, seat) => {
    const me = PLAYERS.indexOf(seat);
    return JSON.stringify({ seat, holdings: state.holdings[me], values: state.values[me], offer: state.offer ?? null, moves: state.moves });
  },
  legalMoves,
  moveText,
  apply,
  payoffs: (state) => ({ first: gain(state, 0), second: gain(state, 1) }),
  utility: { kind: 'general-sum', min: -1, max: 8, par: 0 },
  turnLimit: MOVES,
  labels: (state) => {
    const traded = state.holdings[0].some((n, r) => n !== state.start[0][r]) ? 1 : 0;
    return { first: { traded }, second: { traded } };
  },
  render: (state, viewer) => ({
    hands: Object.fromEntries(PLAYERS.map((seat, p) => [seat, viewer === seat || state.moves >= MOVES ? RESOURCES.map((r, i) => `${r} ${state.holdings[p][i]}×${state.values[p][i]}`) : ['?']])),
    table: state.offer ? [`${PLAYERS[state.offer.by]} offers ${goods(state.offer.give)} for ${goods(state.offer.get)}`] : [],
    caption: state.moves >= MOVES ? 'over' : `${PLAYERS[mover(state)]} to move`,
  }),
};

/**
 * A rule-based trader (ours): it accepts an offer that raises the value of its holdings; otherwise it offers one unit
 * of the resource it values least (of those it holds) for one of the resource it values most, or passes when they are
 * the same. It reads its holdings, values and the table from its information state.
 */
export function trader({ informationState, legal }: PlayerView<TradeMove, Seat>): TradeMove {
  const seen = JSON.parse(informationState) as { holdings: number[]; values: number[]; offer: TradeState['offer'] | null };
  const offer = seen.offer;
  if (offer && legal.some((m) => m.kind === 'accept') && offer.give.amount * seen.values[offer.give.resource] > offer.get.amount * seen.values[offer.get.resource]) return { kind: 'accept' };
  const held = [0, 1, 2].filter((r) => seen.holdings[r] > 0);
  const cheapest = held.reduce((a, b) => (seen.values[b] < seen.values[a] ? b : a));
  const dearest = [0, 1, 2].reduce((a, b) => (seen.values[b] > seen.values[a] ? b : a));
  if (seen.values[dearest] <= seen.values[cheapest]) return { kind: 'pass' };
  return { kind: 'offer', give: { amount: 1, resource: cheapest }, get: { amount: 1, resource: dearest } };
}

/** The `trade` game: the world, its knobs and its reference opponents (random legal, the trader). */
export function tradeGame(knobs: unknown) {
  return worldGame(tradeWorld, knobs, { scripted: { random: randomLegal, trader } });
}
