/**
 * Nim as a world game, in one plugin module against the public package: three heaps of 1-5 stones (dealt by chance),
 * players take turns removing stones from one heap, and whoever takes the last stone wins (normal play; Bouton 1901).
 * The perfect opponent moves to a position whose heaps XOR to 0 when it can.
 *
 *   npx ludus train nim --plugin examples/nim/nim.ts --model default --steps 4 --no-watch
 *   npx ludus eval --game nim --plugin examples/nim/nim.ts --opponents random,perfect   (see docs/world-games.md)
 */
import { definePlugin, oracle, randomLegal, worldGame, type World } from '../../index.ts';

type Seat = 'first' | 'second';
interface Nim {
  readonly heaps: readonly number[];
  readonly next: Seat;
  readonly winner?: Seat;
}
interface Take {
  readonly heap: number;
  readonly count: number;
}

const other = (seat: Seat): Seat => (seat === 'first' ? 'second' : 'first');

export const nimWorld: World<Nim, Take, Seat> = {
  id: 'nim',
  players: ['first', 'second'],
  rules: 'normal-play Nim (Bouton 1901)',
  setup: (rng) => ({ heaps: [1, 2, 3].map(() => 1 + rng.int(5)), next: 'first' }),
  toMove: (state) => (state.winner ? undefined : state.next),
  observe: (state, seat) => `Nim: take stones from one heap; taking the last stone wins. You are ${seat}.\nHeaps: ${state.heaps.map((n, i) => `${'ABC'[i]}=${n}`).join(' ')}`,
  legalMoves: (state) => state.heaps.flatMap((n, heap) => Array.from({ length: n }, (_, k) => ({ heap, count: k + 1 }))),
  legalText: () => 'take N from A, B or C (e.g. "B 2")',
  moveText: (move) => `${'ABC'[move.heap]} ${move.count}`,
  parse: (text, legal) => {
    const found = /\b([ABC])\s*(\d+)/i.exec(text);
    if (!found) return { kind: 'unparseable' };
    const move = { heap: 'ABC'.indexOf(found[1].toUpperCase()), count: Number(found[2]) };
    return legal.some((m) => m.heap === move.heap && m.count === move.count) ? { kind: 'move', move } : { kind: 'illegal', why: `heap ${found[1]} has fewer stones` };
  },
  apply: (state, { heap, count }) => {
    const heaps = state.heaps.map((n, i) => (i === heap ? n - count : n));
    return { heaps, next: other(state.next), ...(heaps.every((n) => n === 0) ? { winner: state.next } : {}) };
  },
  payoffs: (state) => ({ first: state.winner === 'first' ? 1 : -1, second: state.winner === 'second' ? 1 : -1 }),
  turnLimit: 15,
  render: (state) => ({ grid: state.heaps.map((n) => Array.from({ length: 5 }, (_, k) => (k < n ? '●' : '·'))), caption: state.winner ? `${state.winner} wins` : `${state.next} to move` }),
};

/** Moves to heaps whose XOR is 0 when it can, else takes one stone; an oracle: it reads the heaps from the state. */
export const perfect = oracle<Nim, Take, Seat>((state, _seat, legal) => {
  const xor = state.heaps.reduce((a, b) => a ^ b, 0);
  return legal.find(({ heap, count }) => (state.heaps[heap] - count) === (state.heaps[heap] ^ xor)) ?? legal[0];
});

export default definePlugin({
  name: 'nim',
  ludus: '^0.1',
  games: [{ name: 'nim', create: ({ knobs }) => worldGame(nimWorld, knobs, { scripted: { random: randomLegal, perfect } }) }],
});
