import type { PolicyTable } from '../core/world/exploitability.ts';
import { policyPlayer } from '../core/world/policy-player.ts';
import { randomLegal } from '../core/world/random-legal.ts';
import { worldGame } from '../core/world/world-game.ts';
import type { PlayerView, World } from '../core/world/world.ts';
import type { Rng } from '../core/rng.ts';
import { KUHN_KL_BETA, kuhnNashPolicy, kuhnPokerWorld, type KuhnMove, type KuhnState, type Seat } from './kuhn-poker.ts';

/**
 * SPIRAL's KuhnPoker-v1 (arXiv 2506.24119 §4; TextArena's KuhnPoker with five rounds): a match of HANDS hands of Kuhn
 * Poker between the same two players, ante 1 each hand, the player who acts first alternating from hand to hand (the
 * match's first player opens hands 1, 3 and 5), the chips carried over; the match pays +1 to the player ahead in chips
 * after the last hand, −1 to the other, 0 to both on a tie. Each hand is `kuhnPokerWorld`'s one hand, played as it is
 * there, each hand's cards dealt by `kuhnPokerWorld`'s chance events when the hand starts. Its tree (five hands of
 * thirty deal-and-play paths each) is too large to enumerate, so exploitability is exact on the one-hand game only
 * (`kuhn-poker`).
 */
export const HANDS = 5;

export interface KuhnMatchState {
  /** Each hand's one-hand state, its seats being who acts first ('first') and second in that hand. */
  readonly hands: readonly KuhnState[];
  /** The hand under way; HANDS once the match is over. */
  readonly hand: number;
  /** The match's first player's chips won so far, net (the second's are the negative). */
  readonly chips: number;
}

const PLAYERS: readonly Seat[] = ['first', 'second'];
const other = (seat: Seat): Seat => (seat === 'first' ? 'second' : 'first');

/** Who acts first in hand `hand` (0-based): the match's first player in even hands, the second in odd ones. */
export const openerOf = (hand: number): Seat => (hand % 2 === 0 ? 'first' : 'second');
/** A match seat's place in hand `hand`: 'first' when it acts first there. */
export const handSeatOf = (hand: number, seat: Seat): Seat => (seat === openerOf(hand) ? 'first' : 'second');
/** The match seat in a hand's place. */
const matchSeatOf = (hand: number, handSeat: Seat): Seat => (handSeat === 'first' ? openerOf(hand) : other(openerOf(hand)));

const current = (state: KuhnMatchState): KuhnState => state.hands[Math.min(state.hand, HANDS - 1)];
const signed = (chips: number) => (chips > 0 ? `+${chips}` : String(chips));

export const kuhnPokerMatchWorld: World<KuhnMatchState, KuhnMove, Seat> = {
  id: 'kuhn-poker-match',
  players: PLAYERS,
  rules: 'SPIRAL arXiv 2506.24119 §4, KuhnPoker-v1: five hands of Kuhn (1950) poker, the first to act alternating, ±1 for the match',
  setup: (rng) => ({ hands: Array.from({ length: HANDS }, () => kuhnPokerWorld.setup(rng)), hand: 0, chips: 0 }),
  // The hand under way deals its cards as the one-hand game does.
  chanceOutcomes: (state) =>
    state.hand >= HANDS ? [] : kuhnPokerWorld.chanceOutcomes!(current(state)).map((outcome) => ({ ...outcome, state: { ...state, hands: state.hands.map((hand, i) => (i === state.hand ? outcome.state : hand)) } })),
  toMove: (state) => {
    if (state.hand >= HANDS) return undefined;
    const mover = kuhnPokerWorld.toMove(current(state));
    return mover === undefined ? undefined : matchSeatOf(state.hand, mover);
  },
  observe: (state, seat) => {
    const chips = seat === 'first' ? state.chips : -state.chips;
    const place = handSeatOf(state.hand, seat) === 'first' ? 'first' : 'second';
    return (
      `Kuhn poker match: hand ${state.hand + 1} of ${HANDS}; the player ahead in chips after hand ${HANDS} wins the match. Your chips so far: ${signed(chips)}. This hand you act ${place}.\n` +
      kuhnPokerWorld.observe(current(state), handSeatOf(state.hand, seat))
    );
  },
  // Each dealt hand as its seat saw it (its own card, the whole history): all a seat has seen of the match.
  informationState: (state, seat) =>
    state.hands
      .slice(0, Math.min(state.hand + 1, HANDS))
      .map((hand, i) => kuhnPokerWorld.informationState!(hand, handSeatOf(i, seat)))
      .join(' | '),
  legalMoves: (state) => (state.hand >= HANDS ? [] : kuhnPokerWorld.legalMoves(current(state))),
  moveText: kuhnPokerWorld.moveText,
  parse: (text, legal, state) => kuhnPokerWorld.parse!(text, legal, current(state)),
  apply: (state, move) => {
    const played = kuhnPokerWorld.apply(current(state), move);
    const hands = state.hands.map((hand, i) => (i === state.hand ? played : hand));
    if (kuhnPokerWorld.toMove(played) !== undefined) return { ...state, hands };
    const won = kuhnPokerWorld.payoffs(played)[handSeatOf(state.hand, 'first')];
    return { hands, hand: state.hand + 1, chips: state.chips + won };
  },
  payoffs: (state) => {
    const first = Math.sign(state.chips);
    return { first, second: first === 0 ? 0 : -first };
  },
  labels: (state) => ({ first: { chips: state.chips }, second: { chips: -state.chips } }),
  turnLimit: HANDS * kuhnPokerWorld.turnLimit,
  render: (state, viewer) => {
    const hand = Math.min(state.hand, HANDS - 1);
    const scene = kuhnPokerWorld.render!(current(state), viewer === null ? null : handSeatOf(hand, viewer));
    const over = state.hand >= HANDS;
    const hands = Object.fromEntries(PLAYERS.map((seat) => [seat, scene.hands?.[handSeatOf(hand, seat)] ?? []]));
    return { ...scene, hands, table: [`hand ${Math.min(state.hand + 1, HANDS)} of ${HANDS}, first's chips ${signed(state.chips)}`, ...(scene.table ?? [])], caption: over ? `match over: first ${state.chips > 0 ? 'wins' : state.chips < 0 ? 'loses' : 'ties'}` : scene.caption };
  },
};

/** A one-hand policy table played in every hand of the match, keyed by the hand under way (its information state's last part). */
export function matchPolicyPlayer(policy: PolicyTable): (view: PlayerView<KuhnMove, Seat>, rng: Rng) => KuhnMove {
  const hand = policyPlayer<KuhnMove>(kuhnPokerWorld, policy);
  return (view, rng) => hand({ ...view, informationState: view.informationState.split(' | ').pop()! }, rng);
}

/**
 * The `kuhn-poker-match` game: SPIRAL's five-hand match with the world knobs, `klBeta` defaulting as `kuhn-poker`'s
 * does (ours, KUHN_KL_BETA), and reference opponents random and Kuhn's α = 0 equilibrium played hand by hand.
 */
export function kuhnPokerMatchGame(knobs: unknown) {
  return worldGame(kuhnPokerMatchWorld, knobs, {
    scripted: { random: randomLegal, nash: matchPolicyPlayer(kuhnNashPolicy(0)) },
    knobDefaults: { klBeta: KUHN_KL_BETA },
  });
}
