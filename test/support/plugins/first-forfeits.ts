/**
 * A world game in which the first player's every move is unreadable, so it forfeits at once and the second player
 * never takes a turn: what a self-play policy that collapsed into forfeiting (Kuhn Poker at a high learning rate) does
 * to a step. Used by the trainer's tests.
 */
import { definePlugin, randomLegal, worldGame, type World } from '../../../index.ts';

type Seat = 'first' | 'second';
interface Pass {
  readonly next?: Seat;
}

const world: World<Pass, 'pass', Seat> = {
  id: 'first-forfeits',
  players: ['first', 'second'],
  rules: 'a test world (ours)',
  setup: () => ({ next: 'first' }),
  toMove: (state) => state.next,
  observe: (_state, seat) => `You are ${seat}.`,
  legalMoves: () => ['pass'],
  legalText: () => 'pass',
  moveText: (move) => move,
  parse: () => ({ kind: 'unparseable' }),
  apply: () => ({}),
  payoffs: () => ({ first: 0, second: 0 }),
  turnLimit: 2,
  render: () => ({ grid: [], caption: '' }),
};

export default definePlugin({
  name: 'first-forfeits',
  ludus: '^0.1',
  games: [{ name: 'first-forfeits', create: ({ knobs }) => worldGame(world, knobs, { scripted: { random: randomLegal } }) }],
});
