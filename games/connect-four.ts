import type { Rng } from '../core/rng.ts';
import { randomLegal } from '../core/world/random-legal.ts';
import { worldGame } from '../core/world/world-game.ts';
import type { PlayerView, World } from '../core/world/world.ts';

/**
 * Connect Four on a small board (Allis 1988 solved the 7 × 6 game; TextArena's ConnectFour-v0 plays it in text): two
 * players drop a disc in turn into one of COLUMNS columns of ROWS cells, the first as X; four in a row (across, down or
 * diagonal) wins (+1, the other −1), a full board draws. Perfect information, no chance. The board size is ours, small
 * enough that the `solver` opponent plays perfectly by searching the whole game. The prompt's layout is ours.
 */
export type Seat = 'first' | 'second';
export type Disc = '.' | 'X' | 'O';

export const COLUMNS = 4;
export const ROWS = 4;
const LINE = 4;

export interface ConnectFourState {
  /** Cells row by row from the top, `.` empty. */
  readonly board: string;
}

const PLAYERS: readonly Seat[] = ['first', 'second'];
const markOf = (seat: Seat): Disc => (seat === 'first' ? 'X' : 'O');
const at = (board: string, row: number, col: number) => board[row * COLUMNS + col];

/** Every line of LINE cells on the board, as cell indices. */
const LINES: readonly number[][] = (() => {
  const lines: number[][] = [];
  for (let row = 0; row < ROWS; row++) {
    for (let col = 0; col < COLUMNS; col++) {
      for (const [dr, dc] of [[0, 1], [1, 0], [1, 1], [1, -1]]) {
        const cells = Array.from({ length: LINE }, (_, k) => [row + dr * k, col + dc * k]);
        if (cells.every(([r, c]) => r >= 0 && r < ROWS && c >= 0 && c < COLUMNS)) lines.push(cells.map(([r, c]) => r * COLUMNS + c));
      }
    }
  }
  return lines;
})();

export function winnerDisc(board: string): Disc {
  for (const line of LINES) if (board[line[0]] !== '.' && line.every((i) => board[i] === board[line[0]])) return board[line[0]] as Disc;
  return '.';
}

function toMove(state: ConnectFourState): Seat | undefined {
  if (winnerDisc(state.board) !== '.' || !state.board.includes('.')) return undefined;
  return [...state.board].filter((c) => c !== '.').length % 2 === 0 ? 'first' : 'second';
}

const legalMoves = (state: ConnectFourState): number[] => (toMove(state) === undefined ? [] : Array.from({ length: COLUMNS }, (_, c) => c).filter((c) => at(state.board, 0, c) === '.'));

function drop(board: string, col: number, disc: Disc): string {
  for (let row = ROWS - 1; row >= 0; row--) {
    if (at(board, row, col) === '.') {
      const i = row * COLUMNS + col;
      return board.slice(0, i) + disc + board.slice(i + 1);
    }
  }
  return board;
}

const boardText = (board: string) => [...Array.from({ length: ROWS }, (_, r) => board.slice(r * COLUMNS, (r + 1) * COLUMNS).split('').join(' ')), Array.from({ length: COLUMNS }, (_, c) => c + 1).join(' ')].join('\n');

export const connectFourWorld: World<ConnectFourState, number, Seat> = {
  id: 'connect-four',
  players: PLAYERS,
  rules: `Connect Four (Allis 1988; TextArena ConnectFour-v0) on a ${COLUMNS} × ${ROWS} board (ours)`,
  setup: () => ({ board: '.'.repeat(COLUMNS * ROWS) }),
  toMove,
  observe: (state, seat) => `Connect four on ${COLUMNS} columns of ${ROWS}: drop a disc in a column; four in a row wins. You are ${markOf(seat)}.\n${boardText(state.board)}`,
  informationState: (state, seat) => `${markOf(seat)}:${state.board}`,
  legalMoves,
  moveText: (col) => String(col + 1),
  apply: (state, col) => ({ board: drop(state.board, col, markOf(toMove(state)!)) }),
  payoffs: (state) => {
    const disc = winnerDisc(state.board);
    return { first: disc === 'X' ? 1 : disc === 'O' ? -1 : 0, second: disc === 'O' ? 1 : disc === 'X' ? -1 : 0 };
  },
  utility: { kind: 'zero-sum', min: -1, max: 1 },
  turnLimit: COLUMNS * ROWS,
  render: (state) => ({ grid: Array.from({ length: ROWS }, (_, r) => [...state.board.slice(r * COLUMNS, (r + 1) * COLUMNS)].map((c) => (c === '.' ? '·' : c))), caption: winnerDisc(state.board) !== '.' ? `${winnerDisc(state.board)} wins` : toMove(state) ? `${markOf(toMove(state)!)} to move` : 'draw' }),
};

/** The value of a board for the player to move under perfect play (+1 win, 0 draw, −1 loss), memoised by board. */
const values = new Map<string, number>();
export function solvedValue(board: string): number {
  const known = values.get(board);
  if (known !== undefined) return known;
  const state = { board };
  const mover = toMove(state);
  let value: number;
  if (mover === undefined) value = winnerDisc(board) === '.' ? 0 : -1;
  else {
    value = -1;
    for (const col of legalMoves(state)) {
      value = Math.max(value, -solvedValue(drop(board, col, markOf(mover))));
      if (value === 1) break;
    }
  }
  values.set(board, value);
  return value;
}

/** A perfect player: one of the columns the solved game values best, drawn among them; it reads the board from its information state. */
export function solverPlayer({ informationState, legal }: PlayerView<number, Seat>, rng: Rng): number {
  const [mark, board] = informationState.split(':') as [Disc, string];
  const scored = legal.map((col) => ({ col, value: -solvedValue(drop(board, col, mark)) }));
  const best = Math.max(...scored.map((s) => s.value));
  const top = scored.filter((s) => s.value === best);
  return top[rng.int(top.length)].col;
}

/** The `connect-four` game: the world, its knobs and its reference opponents (random, and the solver). */
export function connectFourGame(knobs: unknown) {
  return worldGame(connectFourWorld, knobs, { scripted: { random: randomLegal, solver: solverPlayer } });
}
