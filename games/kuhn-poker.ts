import { fail } from '../core/errors.ts';
import type { PolicyTable } from '../core/world/exploitability.ts';
import { policyPlayer } from '../core/world/policy-player.ts';
import { randomLegal } from '../core/world/random-legal.ts';
import { worldGame } from '../core/world/world-game.ts';
import type { ChanceOutcome, ParsedMove, World } from '../core/world/world.ts';

/**
 * Kuhn Poker (Kuhn 1950; SPIRAL arXiv 2506.24119 §4, KuhnPoker-v1): a deck of J < Q < K, one card each, one ante
 * each. The first player checks or bets one chip; after a check the second checks (showdown) or bets; facing a bet a
 * player folds (the other takes the pot) or calls (showdown). Payoffs are the chips won (±1, or ±2 after a call), as
 * in Kuhn's game and OpenSpiel; SPIRAL pays ±1 for winning the pot. Hidden information: a player's prompt holds its
 * own card only. The prompt's layout is ours.
 */
export type Seat = 'first' | 'second';
export type KuhnMove = 'check' | 'bet' | 'call' | 'fold';

export interface KuhnState {
  /** The cards dealt so far, the first player's then the second's: 0 = J, 1 = Q, 2 = K. */
  readonly cards: readonly number[];
  /** `p` for a check or fold, `b` for a bet or call, in order. */
  readonly history: string;
}

const PLAYERS: readonly Seat[] = ['first', 'second'];
const CARD = ['J', 'Q', 'K'] as const;
const TERMINAL = new Set(['pp', 'bp', 'bb', 'pbp', 'pbb']);

const facingBet = (history: string) => history.endsWith('b');
const codeOf = (move: KuhnMove): string => (move === 'check' || move === 'fold' ? 'p' : 'b');
const moverOf = (history: string): Seat => (history.length % 2 === 0 ? 'first' : 'second');
const movesAt = (history: string): KuhnMove[] => (facingBet(history) ? ['fold', 'call'] : ['check', 'bet']);
const moveAt = (history: string, code: string): KuhnMove => movesAt(history)[code === 'p' ? 0 : 1];

/** The first player's chips at a finished history. */
function firstPayoff(cards: readonly number[], history: string): number {
  if (history === 'bp') return 1;
  if (history === 'pbp') return -1;
  const stake = history.includes('b') ? 2 : 1;
  return cards[0] > cards[1] ? stake : -stake;
}

function describe(history: string): string {
  if (history === '') return 'No bets yet.';
  return `So far: ${[...history].map((code, i) => `${PLAYERS[i % 2]} ${moveAt(history.slice(0, i), code)}s`).join(', ')}.`;
}

function parse(text: string, legal: readonly KuhnMove[]): ParsedMove<KuhnMove> {
  const word = /\b(check|bet|call|fold)\b/i.exec(text)?.[1].toLowerCase() as KuhnMove | undefined;
  if (word === undefined) return { kind: 'unparseable' };
  return legal.includes(word) ? { kind: 'move', move: word } : { kind: 'illegal', why: `cannot ${word} now` };
}

/** Information set keys: the player, its card, the history it sees (`first:K:pb`). */
export const infoKey = (player: Seat, card: number, history: string) => `${player}:${CARD[card]}:${history}`;

/**
 * Kuhn's equilibria, a family in α ∈ [0, 1/3] (Kuhn 1950): the first player bets a J with probability α, a K with 3α,
 * checks a Q and calls a bet after checking it with α + 1/3; the second bets a K and a J (bluff, 1/3) after a check,
 * calls a bet with a K always and a Q with 1/3, folds a J.
 */
export function kuhnNashPolicy(alpha: number): PolicyTable {
  if (!(alpha >= 0 && alpha <= 1 / 3)) fail('INPUT_INVALID', `kuhn-poker: a Nash policy's α must lie in [0, 1/3], got ${alpha}`, { alpha });
  const two = (first: KuhnMove, second: KuhnMove, p: number) => ({ [first]: 1 - p, [second]: p });
  return {
    [infoKey('first', 0, '')]: two('check', 'bet', alpha),
    [infoKey('first', 1, '')]: two('check', 'bet', 0),
    [infoKey('first', 2, '')]: two('check', 'bet', 3 * alpha),
    [infoKey('first', 0, 'pb')]: two('fold', 'call', 0),
    [infoKey('first', 1, 'pb')]: two('fold', 'call', alpha + 1 / 3),
    [infoKey('first', 2, 'pb')]: two('fold', 'call', 1),
    [infoKey('second', 0, 'p')]: two('check', 'bet', 1 / 3),
    [infoKey('second', 1, 'p')]: two('check', 'bet', 0),
    [infoKey('second', 2, 'p')]: two('check', 'bet', 1),
    [infoKey('second', 0, 'b')]: two('fold', 'call', 0),
    [infoKey('second', 1, 'b')]: two('fold', 'call', 1 / 3),
    [infoKey('second', 2, 'b')]: two('fold', 'call', 1),
  };
}

/**
 * The deal as two chance events, each card uniform among those left: the first player's (J, Q, K), then the second's
 * (the two others, in the order after the first). Drawn in that order from the match's RNG, which is the order and the
 * arithmetic the deal had when it was drawn in `setup`, so earlier runs' matches replay the same.
 */
function deal(state: KuhnState): ChanceOutcome<KuhnState>[] {
  if (state.cards.length === 2) return [];
  const left = state.cards.length === 0 ? [0, 1, 2] : [1, 2].map((k) => (state.cards[0] + k) % 3);
  return left.map((card) => ({ id: CARD[card], probability: 1 / left.length, state: { ...state, cards: [...state.cards, card] } }));
}

export const kuhnPokerWorld: World<KuhnState, KuhnMove, Seat> = {
  id: 'kuhn-poker',
  players: PLAYERS,
  rules: 'Kuhn 1950; KuhnPoker-v1 in SPIRAL (arXiv 2506.24119 §4), one round',
  setup: () => ({ cards: [], history: '' }),
  chanceOutcomes: deal,
  toMove: (state) => (state.cards.length < 2 || TERMINAL.has(state.history) ? undefined : moverOf(state.history)),
  observe: (state, player) => `Kuhn poker: J < Q < K, ante 1 each. You are ${player}. Your card: ${CARD[state.cards[player === 'first' ? 0 : 1]]}.\n${describe(state.history)}`,
  informationState: (state, player) => infoKey(player, state.cards[player === 'first' ? 0 : 1], state.history),
  legalMoves: (state) => (TERMINAL.has(state.history) ? [] : movesAt(state.history)),
  moveText: (move) => move,
  parse: (text, legal) => parse(text, legal),
  apply: (state, move) => ({ ...state, history: state.history + codeOf(move) }),
  payoffs: (state) => {
    const first = firstPayoff(state.cards, state.history);
    return { first, second: -first };
  },
  utility: { kind: 'zero-sum', min: -2, max: 2 },
  turnLimit: 3,
  render: (state, viewer) => {
    const over = TERMINAL.has(state.history);
    const shown = (i: 0 | 1) => (over || viewer === PLAYERS[i] ? CARD[state.cards[i]] : '?');
    const pot = 2 + [...state.history].filter((c) => c === 'b').length;
    return { hands: { first: [shown(0)], second: [shown(1)] }, table: [describe(state.history), `pot ${pot}`], caption: over ? `first ${firstPayoff(state.cards, state.history) > 0 ? 'wins' : 'loses'}` : `${moverOf(state.history)} to act` };
  },
};

/**
 * Kuhn Poker's β of the KL toward the policy's start (ours, measured; docs/world-games.md): without it, self-play from
 * the shipped base drives the shared "bet" and "call" preference to 0.999 at every card before the card can matter, and
 * stalls there (exploitability 0.470 → 0.333); held near its start, the policy keeps sampling both moves while the
 * card-specific gradients separate them (0.470 → 0.138–0.200 in 60 steps, three seeds). The anchor is the idea of
 * magnetic mirror descent (Sokota et al., ICLR 2023): a KL toward a fixed "magnet" makes policy-gradient self-play in a
 * two-player zero-sum game settle at a regularized equilibrium instead of cycling.
 */
export const KUHN_KL_BETA = 0.5;

/** The `kuhn-poker` game: the world with its knobs (`klBeta` defaulting to KUHN_KL_BETA) and its reference opponents (random, and two of the Nash family). */
export function kuhnPokerGame(knobs: unknown) {
  return worldGame(kuhnPokerWorld, knobs, {
    scripted: { random: randomLegal, nash: policyPlayer(kuhnPokerWorld, kuhnNashPolicy(0)), 'nash-bluffer': policyPlayer(kuhnPokerWorld, kuhnNashPolicy(1 / 3)) },
    knobDefaults: { klBeta: KUHN_KL_BETA },
  });
}
