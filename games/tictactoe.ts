import type { Rng } from '../core/rng.ts';
import { randomLegal } from '../core/world/random-legal.ts';
import { worldGame } from '../core/world/world-game.ts';
import type { ParsedMove, PlayerView, World } from '../core/world/world.ts';

/**
 * TicTacToe as SPIRAL trains it (TextArena's TicTacToe-v0, played in SPIRAL arXiv 2506.24119 §4): two players mark a
 * 3×3 grid in turn, the first as X; three in a row wins (+1, the other −1), a full grid without one is a draw (0).
 * Perfect information, no chance. The prompt's layout is ours: the free cells show their numbers, so the legal moves
 * are what the board shows.
 */
export type Seat = 'first' | 'second';
export type Cell = '' | 'X' | 'O';

export interface TicTacToeState {
  readonly board: readonly Cell[];
}

const PLAYERS: readonly Seat[] = ['first', 'second'];
const LINES = [
  [0, 1, 2],
  [3, 4, 5],
  [6, 7, 8],
  [0, 3, 6],
  [1, 4, 7],
  [2, 5, 8],
  [0, 4, 8],
  [2, 4, 6],
] as const;

const markOf = (seat: Seat): Cell => (seat === 'first' ? 'X' : 'O');

export function winnerMark(board: readonly Cell[]): Cell {
  for (const [a, b, c] of LINES) if (board[a] !== '' && board[a] === board[b] && board[a] === board[c]) return board[a];
  return '';
}

function toMove(state: TicTacToeState): Seat | undefined {
  if (winnerMark(state.board) !== '' || state.board.every((cell) => cell !== '')) return undefined;
  return state.board.filter((cell) => cell !== '').length % 2 === 0 ? 'first' : 'second';
}

const legalMoves = (state: TicTacToeState): number[] => (toMove(state) === undefined ? [] : state.board.flatMap((cell, i) => (cell === '' ? [i] : [])));

function boardText(board: readonly Cell[]): string {
  return [0, 3, 6].map((row) => [0, 1, 2].map((col) => board[row + col] || String(row + col + 1)).join(' ')).join('\n');
}

/** The first cell number (1-9) the text names, as a move: legal if the cell is free. */
function parse(text: string, legal: readonly number[]): ParsedMove<number> {
  const digit = /[1-9]/.exec(text);
  if (!digit) return { kind: 'unparseable' };
  const cell = Number(digit[0]) - 1;
  return legal.includes(cell) ? { kind: 'move', move: cell } : { kind: 'illegal', why: `cell ${cell + 1} is taken` };
}

export const ticTacToeWorld: World<TicTacToeState, number, Seat> = {
  id: 'tictactoe',
  players: PLAYERS,
  rules: 'TextArena TicTacToe-v0 as trained in SPIRAL (arXiv 2506.24119 §4)',
  setup: () => ({ board: Array<Cell>(9).fill('') }),
  toMove,
  observe: (state, player) => `Tic-tac-toe. You are ${markOf(player)}; three in a row wins.\n${boardText(state.board)}`,
  informationState: (state, player) => `${markOf(player)}:${state.board.map((c) => c || '.').join('')}`,
  legalMoves,
  moveText: (cell) => String(cell + 1),
  parse: (text, legal) => parse(text, legal),
  apply: (state, cell) => {
    const board = [...state.board];
    board[cell] = markOf(toMove(state)!);
    return { board };
  },
  payoffs: (state) => {
    const mark = winnerMark(state.board);
    return { first: mark === 'X' ? 1 : mark === 'O' ? -1 : 0, second: mark === 'O' ? 1 : mark === 'X' ? -1 : 0 };
  },
  utility: { kind: 'zero-sum', min: -1, max: 1 },
  turnLimit: 9,
  render: (state) => ({ grid: [0, 3, 6].map((row) => [0, 1, 2].map((col) => state.board[row + col] || '·')), caption: captionOf(state) }),
};

function captionOf(state: TicTacToeState): string {
  const mark = winnerMark(state.board);
  if (mark !== '') return `${mark} wins`;
  const next = toMove(state);
  return next === undefined ? 'draw' : `${markOf(next)} to move`;
}

/** The game's value for the player to move under perfect play (+1 win, 0 draw, −1 loss), memoised by board. */
const values = new Map<string, number>();
export function minimaxValue(state: TicTacToeState): number {
  const key = state.board.map((c) => c || '.').join('');
  const known = values.get(key);
  if (known !== undefined) return known;
  const mover = toMove(state);
  let value: number;
  if (mover === undefined) value = winnerMark(state.board) === '' ? 0 : -1;
  else value = Math.max(...legalMoves(state).map((cell) => 0 - minimaxValue(ticTacToeWorld.apply(state, cell))));
  values.set(key, value);
  return value;
}

/**
 * A perfect player: one of the moves minimax values best, drawn at random among them. It reads the board from its
 * information state (`X:X.O......`), which in a game of perfect information is all there is to see.
 */
export const minimaxPlayer = ({ informationState, legal }: PlayerView<number, Seat>, rng: Rng): number => {
  const state: TicTacToeState = { board: [...informationState.slice(2)].map((c) => (c === '.' ? '' : (c as Cell))) };
  const scored = legal.map((cell) => ({ cell, value: 0 - minimaxValue(ticTacToeWorld.apply(state, cell)) }));
  const best = Math.max(...scored.map((s) => s.value));
  return pick(scored.filter((s) => s.value === best).map((s) => s.cell), rng);
};

function pick<T>(items: readonly T[], rng: Rng): T {
  return items[rng.int(items.length)];
}

/** The `tictactoe` game: the world with its knobs (self-play by default) and its reference opponents. */
export function ticTacToeGame(knobs: unknown) {
  return worldGame(ticTacToeWorld, knobs, { scripted: { random: randomLegal, minimax: minimaxPlayer } });
}
