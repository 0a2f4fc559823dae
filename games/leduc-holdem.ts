import { equilibriumPlayer } from '../core/world/policy-player.ts';
import { randomLegal } from '../core/world/random-legal.ts';
import { worldGame } from '../core/world/world-game.ts';
import type { ChanceOutcome, World } from '../core/world/world.ts';

/**
 * Leduc Hold'em (Southey et al. 2005; OpenSpiel's `leduc_poker`): six cards, two each of J < Q < K. Each player antes
 * 1 and is dealt one private card; a betting round (bets and raises of 2) follows, then a public card and a second
 * round (bets and raises of 4), at most two bets or raises a round, the first player acting first in each. At a
 * showdown a private card that pairs the public one wins, else the higher card; equal cards split the pot. Payoffs are
 * the chips won. Suits never matter, so the deal is drawn by rank, each with its probability given the cards already
 * out. The prompt's layout is ours.
 */
export type Seat = 'first' | 'second';
export type LeducMove = 'check' | 'bet' | 'fold' | 'call' | 'raise';

export interface LeducState {
  /** Ranks dealt so far: the first player's, the second's, then the public card (0 = J, 1 = Q, 2 = K). */
  readonly cards: readonly number[];
  /** Per round, its actions: `c` check or call, `b` bet or raise, `f` fold. */
  readonly rounds: readonly string[];
}

const PLAYERS: readonly Seat[] = ['first', 'second'];
const RANK = ['J', 'Q', 'K'] as const;
const BET = [2, 4] as const;
const MAX_RAISES = 2;

const raises = (history: string) => [...history].filter((a) => a === 'b').length;
const facingBet = (history: string) => history.endsWith('b');
/** A round ends on a fold, on a call of a bet, or on two checks. */
const roundOver = (history: string) => history.endsWith('f') || (history.length >= 2 && history.endsWith('c'));
const folded = (state: LeducState) => state.rounds.some((h) => h.endsWith('f'));
const current = (state: LeducState) => state.rounds[state.rounds.length - 1];

function over(state: LeducState): boolean {
  return folded(state) || (state.rounds.length === 2 && roundOver(state.rounds[1]));
}

/** Chips each player has put in: the ante, then each round's bets and calls. */
function contributions(state: LeducState): [number, number] {
  const put: [number, number] = [1, 1];
  state.rounds.forEach((history, round) => {
    [...history].forEach((action, i) => {
      const p = i % 2;
      if (action === 'c') put[p] = put[1 - p];
      if (action === 'b') put[p] = put[1 - p] + BET[round];
    });
  });
  return put;
}

function firstPayoff(state: LeducState): number {
  const [a, b] = contributions(state);
  const last = state.rounds[state.rounds.length - 1];
  if (last.endsWith('f')) return (last.length - 1) % 2 === 0 ? -a : b;
  const [mine, theirs, board] = state.cards;
  const strength = (card: number) => (card === board ? 10 : card);
  return strength(mine) === strength(theirs) ? 0 : strength(mine) > strength(theirs) ? b : -a;
}

/** The next card's ranks with their chances: two of each rank in the deck, less those already out. */
function deal(state: LeducState): ChanceOutcome<LeducState>[] {
  const needed = state.cards.length < 2 || (state.cards.length === 2 && state.rounds.length === 1 && roundOver(state.rounds[0]) && !folded(state));
  if (!needed) return [];
  const left = [0, 1, 2].map((rank) => 2 - state.cards.filter((c) => c === rank).length);
  const total = left.reduce((a, b) => a + b, 0);
  return [0, 1, 2]
    .filter((rank) => left[rank] > 0)
    .map((rank) => ({
      id: RANK[rank],
      probability: left[rank] / total,
      state: { cards: [...state.cards, rank], rounds: state.cards.length === 2 ? [...state.rounds, ''] : state.rounds },
    }));
}

function legalMoves(state: LeducState): LeducMove[] {
  if (state.cards.length < 2 || over(state) || deal(state).length > 0) return [];
  const history = current(state);
  if (!facingBet(history)) return ['check', 'bet'];
  return raises(history) < MAX_RAISES ? ['fold', 'call', 'raise'] : ['fold', 'call'];
}

const codeOf = (move: LeducMove) => (move === 'fold' ? 'f' : move === 'check' || move === 'call' ? 'c' : 'b');

function describeRound(history: string): string {
  return [...history].map((a, i) => `${PLAYERS[i % 2]} ${a === 'f' ? 'folds' : a === 'c' ? (facingBet(history.slice(0, i)) ? 'calls' : 'checks') : facingBet(history.slice(0, i)) ? 'raises' : 'bets'}`).join(', ') || 'no bets yet';
}

function observe(state: LeducState, player: Seat): string {
  const own = state.cards[player === 'first' ? 0 : 1];
  const board = state.cards.length > 2 ? `Public card: ${RANK[state.cards[2]]}.` : 'No public card yet.';
  const rounds = state.rounds.map((h, r) => `Round ${r + 1}: ${describeRound(h)}.`).join('\n');
  return `Leduc poker: two each of J < Q < K; ante 1; bets of 2 in round 1 and 4 in round 2, at most two a round; a pair with the public card wins. You are ${player}. Your card: ${RANK[own]}. ${board}\n${rounds}`;
}

export const leducWorld: World<LeducState, LeducMove, Seat> = {
  id: 'leduc-holdem',
  players: PLAYERS,
  rules: "Leduc Hold'em (Southey et al. 2005), as OpenSpiel's leduc_poker",
  setup: () => ({ cards: [], rounds: [''] }),
  chanceOutcomes: deal,
  toMove: (state) => (legalMoves(state).length === 0 ? undefined : PLAYERS[current(state).length % 2]),
  observe,
  informationState: (state, player) => `${player}:${RANK[state.cards[player === 'first' ? 0 : 1]]}:${state.cards.length > 2 ? RANK[state.cards[2]] : '-'}:${state.rounds.join('/')}`,
  legalMoves,
  moveText: (move) => move,
  apply: (state, move) => ({ ...state, rounds: [...state.rounds.slice(0, -1), current(state) + codeOf(move)] }),
  payoffs: (state) => {
    const first = firstPayoff(state);
    return { first, second: -first };
  },
  utility: { kind: 'zero-sum', min: -13, max: 13 },
  turnLimit: 8,
  render: (state, viewer) => {
    const shown = (i: 0 | 1) => (over(state) && !folded(state)) || viewer === PLAYERS[i] ? RANK[state.cards[i]] : '?';
    const pot = contributions(state).reduce((a, b) => a + b, 0);
    return { hands: { first: [shown(0)], second: [shown(1)] }, table: [...state.rounds.map((h, r) => `round ${r + 1}: ${describeRound(h)}`), `public ${state.cards.length > 2 ? RANK[state.cards[2]] : '-'}`, `pot ${pot}`], caption: over(state) ? `first ${firstPayoff(state) > 0 ? 'wins' : firstPayoff(state) < 0 ? 'loses' : 'splits'}` : `${PLAYERS[current(state).length % 2]} to act` };
  },
};

/** CFR+ iterations of the `nash` opponent (ours): 1,000 leave an exploitability under 0.001 (tested), in seconds. */
export const LEDUC_CFR_ITERATIONS = 1000;

/** The `leduc-holdem` game: the world, its knobs and its reference opponents (random, and `nash`: CFR+'s average policy). */
export function leducGame(knobs: unknown) {
  return worldGame(leducWorld, knobs, { scripted: { random: randomLegal, nash: equilibriumPlayer(leducWorld, LEDUC_CFR_ITERATIONS) } });
}
