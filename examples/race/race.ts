/**
 * Race to 10 as a world game with mid-game chance, written against the public package: players in turn add 1, 2 or 3
 * to a shared total, and a gust of wind may add 1 more after a move; whoever brings the total to 10 wins (a gust that
 * gets there wins it for the player who just moved). Everything else comes from the contract: the default parser, the
 * random and equilibrium (CFR+) opponents, exploitability.
 *
 *   npx ludus train race --plugin examples/race/race.ts --steps 30 --no-watch
 *   npx ludus eval --game race --plugin examples/race/race.ts --opponents random,equilibrium --model RUN/checkpoint/policies/player
 */
import { definePlugin, equilibriumPlayer, randomLegal, worldGame, type World } from '../../index.ts';

type Seat = 'first' | 'second';
interface Race {
  readonly total: number;
  readonly next: Seat;
  /** A gust is due: the move just made left the total short of the target. */
  readonly gust: boolean;
  readonly winner?: Seat;
}

const TARGET = 10;
/** The chance of a gust after a move (ours). */
const GUST = 0.25;
const other = (seat: Seat): Seat => (seat === 'first' ? 'second' : 'first');

export const raceWorld: World<Race, number, Seat> = {
  id: 'race',
  players: ['first', 'second'],
  rules: 'a race to 10 (ours)',
  setup: () => ({ total: 0, next: 'first', gust: false }),
  chanceOutcomes: (state) => {
    if (!state.gust) return [];
    const blown = state.total + 1 >= TARGET ? { total: TARGET, winner: other(state.next) } : { total: state.total + 1 };
    return [
      { id: 'calm', probability: 1 - GUST, state: { ...state, gust: false } },
      { id: 'gust', probability: GUST, state: { ...state, ...blown, gust: false } },
    ];
  },
  toMove: (state) => (state.winner || state.gust ? undefined : state.next),
  observe: (state, seat) => `Race to ${TARGET}: add 1, 2 or 3 to the total; whoever reaches ${TARGET} wins. A gust may add 1 after a move. You are ${seat}.\nTotal: ${state.total}.`,
  legalMoves: (state) => [1, 2, 3].filter((n) => state.total + n <= TARGET),
  moveText: (n) => String(n),
  apply: (state, n) => (state.total + n >= TARGET ? { ...state, total: TARGET, winner: state.next } : { total: state.total + n, next: other(state.next), gust: true }),
  payoffs: (state) => ({ first: state.winner === 'first' ? 1 : -1, second: state.winner === 'second' ? 1 : -1 }),
  utility: { kind: 'zero-sum', min: -1, max: 1 },
  turnLimit: TARGET,
  render: (state) => ({ grid: [Array.from({ length: TARGET }, (_, i) => (i < state.total ? '●' : '·'))], caption: state.winner ? `${state.winner} wins` : `${state.next} to move` }),
};

export default definePlugin({
  name: 'race',
  ludus: '^0.1',
  games: [{ name: 'race', create: ({ knobs }) => worldGame(raceWorld, knobs, { scripted: { random: randomLegal, equilibrium: equilibriumPlayer(raceWorld) } }) }],
});
