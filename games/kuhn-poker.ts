import { fail } from '../core/errors.ts';
import { randomLegal } from '../core/world/random-legal.ts';
import { worldGame } from '../core/world/world-game.ts';
import type { InformationSet, ParsedMove, ScriptedPlayer, World } from '../core/world/world.ts';

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
  /** The first player's card, then the second's: 0 = J, 1 = Q, 2 = K. */
  readonly cards: readonly [number, number];
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
function firstPayoff(cards: readonly [number, number], history: string): number {
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

function informationSets(): InformationSet<KuhnState>[] {
  const sets: InformationSet<KuhnState>[] = [];
  for (const history of ['', 'pb', 'p', 'b']) {
    const player = moverOf(history);
    for (let card = 0; card < 3; card++) {
      const other = (card + 1) % 3;
      sets.push({ key: infoKey(player, card, history), player, state: { cards: player === 'first' ? [card, other] : [other, card], history } });
    }
  }
  return sets;
}

export type KuhnPolicy = Readonly<Record<string, Readonly<Record<string, number>>>>;

const DEALS: readonly (readonly [number, number])[] = [0, 1, 2].flatMap((a) => [0, 1, 2].filter((b) => b !== a).map((b) => [a, b] as const));

/**
 * The value to `brPlayer` of its best response to `policy`'s other side, exactly: its information sets decided from
 * the deepest up, each by the move with the most counterfactual value (chance and the opponent's reach weighted).
 */
export function bestResponseValue(policy: KuhnPolicy, brPlayer: Seat): number {
  const chosen = new Map<string, string>();
  const probability = (player: Seat, card: number, history: string, move: string): number => {
    const key = infoKey(player, card, history);
    if (player === brPlayer) return chosen.get(key) === move ? 1 : 0;
    const p = policy[key]?.[move];
    if (p === undefined) fail('INPUT_INVALID', `kuhn-poker: the policy gives no probability of "${move}" at ${key}`, { key, move });
    return p!;
  };
  const value = (deal: readonly [number, number], history: string): number => {
    if (TERMINAL.has(history)) return firstPayoff(deal as [number, number], history) * (brPlayer === 'first' ? 1 : -1);
    const mover = moverOf(history);
    const card = deal[mover === 'first' ? 0 : 1];
    return movesAt(history).reduce((sum, move) => {
      const p = probability(mover, card, history, move);
      return p === 0 ? sum : sum + p * value(deal, history + codeOf(move));
    }, 0);
  };
  const opponentReach = (deal: readonly [number, number], history: string): number => {
    let reach = 1;
    for (let i = 0; i < history.length; i++) {
      const mover = moverOf(history.slice(0, i));
      if (mover !== brPlayer) reach *= probability(mover, deal[mover === 'first' ? 0 : 1], history.slice(0, i), moveAt(history.slice(0, i), history[i]));
    }
    return reach;
  };
  const mine = informationSets().filter((set) => set.player === brPlayer).sort((a, b) => b.state.history.length - a.state.history.length);
  for (const { key, state } of mine) {
    const card = state.cards[brPlayer === 'first' ? 0 : 1];
    const deals = DEALS.filter((deal) => deal[brPlayer === 'first' ? 0 : 1] === card);
    let best = { move: '', value: -Infinity };
    for (const move of movesAt(state.history)) {
      const v = deals.reduce((sum, deal) => sum + opponentReach(deal, state.history) * value(deal, state.history + codeOf(move)), 0);
      if (v > best.value) best = { move, value: v };
    }
    chosen.set(key, best.move);
  }
  return DEALS.reduce((sum, deal) => sum + value(deal, '') / DEALS.length, 0);
}

/** OpenSpiel's exploitability: (NashConv) / 2, the mean gain of a best response against each side of the policy. */
export function kuhnExploitability(policy: KuhnPolicy): number {
  return (bestResponseValue(policy, 'first') + bestResponseValue(policy, 'second')) / 2;
}

/**
 * Kuhn's equilibria, a family in α ∈ [0, 1/3] (Kuhn 1950): the first player bets a J with probability α, a K with 3α,
 * checks a Q and calls a bet after checking it with α + 1/3; the second bets a K and a J (bluff, 1/3) after a check,
 * calls a bet with a K always and a Q with 1/3, folds a J.
 */
export function kuhnNashPolicy(alpha: number): KuhnPolicy {
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

/** A scripted player that plays a policy table from its own card and the history (nothing else of the state). */
export function policyPlayer(policy: KuhnPolicy): ScriptedPlayer<KuhnState, KuhnMove, Seat> {
  return (state, player, legal, rng) => {
    const probabilities = policy[infoKey(player, state.cards[player === 'first' ? 0 : 1], state.history)];
    let draw = rng.next();
    for (const move of legal) if ((draw -= probabilities[move] ?? 0) < 0) return move;
    return legal[legal.length - 1];
  };
}

export const kuhnPokerWorld: World<KuhnState, KuhnMove, Seat> = {
  id: 'kuhn-poker',
  players: PLAYERS,
  rules: 'Kuhn 1950; KuhnPoker-v1 in SPIRAL (arXiv 2506.24119 §4), one round',
  setup: (rng) => {
    const first = rng.int(3);
    const second = (first + 1 + rng.int(2)) % 3;
    return { cards: [first, second], history: '' };
  },
  toMove: (state) => (TERMINAL.has(state.history) ? undefined : moverOf(state.history)),
  observe: (state, player) => `Kuhn poker: J < Q < K, ante 1 each. You are ${player}. Your card: ${CARD[state.cards[player === 'first' ? 0 : 1]]}.\n${describe(state.history)}`,
  legalMoves: (state) => (TERMINAL.has(state.history) ? [] : movesAt(state.history)),
  moveText: (move) => move,
  parse: (text, legal) => parse(text, legal),
  apply: (state, move) => ({ ...state, history: state.history + codeOf(move) }),
  payoffs: (state) => {
    const first = firstPayoff(state.cards, state.history);
    return { first, second: -first };
  },
  turnLimit: 3,
  exact: { informationSets, exploitability: kuhnExploitability },
  render: (state, viewer) => {
    const over = TERMINAL.has(state.history);
    const shown = (i: 0 | 1) => (over || viewer === PLAYERS[i] ? CARD[state.cards[i]] : '?');
    const pot = 2 + [...state.history].filter((c) => c === 'b').length;
    return { hands: { first: [shown(0)], second: [shown(1)] }, table: [describe(state.history), `pot ${pot}`], caption: over ? `first ${firstPayoff(state.cards, state.history) > 0 ? 'wins' : 'loses'}` : `${moverOf(state.history)} to act` };
  },
};

/** All legal moves at every information set equally likely: the uniform policy. */
export function uniformKuhnPolicy(): KuhnPolicy {
  return Object.fromEntries(informationSets().map(({ key, state }) => [key, Object.fromEntries(movesAt(state.history).map((m) => [m, 0.5]))]));
}

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
    scripted: { random: randomLegal, nash: policyPlayer(kuhnNashPolicy(0)), 'nash-bluffer': policyPlayer(kuhnNashPolicy(1 / 3)) },
    knobDefaults: { klBeta: KUHN_KL_BETA },
  });
}
