import type { Rng } from '../rng.ts';

/**
 * What a world's parser makes of a player's text: a move it names (which must be one of the legal moves), a move the
 * rules forbid here (`illegal`, with why), or nothing it can read (`unparseable`).
 */
export type ParsedMove<Move> =
  | { readonly kind: 'move'; readonly move: Move }
  | { readonly kind: 'illegal'; readonly why: string }
  | { readonly kind: 'unparseable' };

/** A picture of the world's state for the viewer: a grid (a board), cards per player, offers on the table, a caption. */
export interface WorldScene {
  readonly grid?: readonly (readonly string[])[];
  /** Per player: the cards shown (hidden ones as `?` while the viewer may not see them). */
  readonly hands?: Readonly<Record<string, readonly string[]>>;
  /** Lines of what is on the table (offers, bets, the pot). */
  readonly table?: readonly string[];
  readonly caption?: string;
}

/** One outcome of a chance event (a card dealt, a die rolled): its stable id, its probability and the state it leads to. */
export interface ChanceOutcome<State> {
  readonly id: string;
  readonly probability: number;
  readonly state: State;
}

/**
 * What a game's payoffs are (OpenSpiel's `GameType.Utility`), and so what a win is: in a zero-sum or constant-sum game a
 * player wins with more than every other player; in a general-sum game (bargaining, trade) with more than `par` (what
 * it counts as a fair result: half its value, no gain), draws at it and loses below it, whatever the others get.
 */
export type Utility =
  | { readonly kind: 'zero-sum' | 'constant-sum'; readonly min: number; readonly max: number }
  | { readonly kind: 'general-sum'; readonly min: number; readonly max: number; readonly par: number };

/** Rewards of one move: a number is the mover's; a record pays any players (a fine to the other, a bonus to all). */
export type MoveRewards<Player extends string> = number | Readonly<Partial<Record<Player, number>>>;

/**
 * A game with a world (SPIRAL, TextArena, OpenSpiel): a pure state machine over plain-data states, as boardgame.io's
 * `Game<G>` is and OpenSpiel's `State` with its `GameType`. Chance is drawn from the match's seed, in `setup` or at
 * any later state through `chanceOutcomes`, so a match replays exactly from (seed, moves). Hidden information stays
 * hidden because a player's prompt is built from `observe(state, player)` only, never from another player's text;
 * `informationState` says which states a player cannot tell apart, which is what exact measures group by.
 */
export interface World<State, Move, Player extends string = string> {
  readonly id: string;
  readonly players: readonly Player[];
  /**
   * The initial state, drawn from `rng` where the game's chance is all up front. A game with exact measures
   * (exploitability) draws nothing here and puts its chance in `chanceOutcomes`, which can be enumerated.
   */
  readonly setup: (rng: Rng) => State;
  /**
   * The outcomes of the chance event at `state` with their probabilities (summing to 1), or none where no chance
   * event is due. A chance event is resolved before anyone moves, drawn from the match's seeded RNG: at the start (a
   * deal) or mid-game (a public card, a die roll).
   */
  readonly chanceOutcomes?: (state: State) => readonly ChanceOutcome<State>[];
  /** Whose turn it is; undefined once the game is over. */
  readonly toMove: (state: State) => Player | undefined;
  /** What `player` may see now, as text: their own cards, the public history; never another player's secrets. */
  readonly observe: (state: State, player: Player) => string;
  /**
   * A key equal for exactly the states `player` cannot tell apart given all it has seen (OpenSpiel's
   * `InformationStateString`): its own cards and the whole public history. Absent: `observe`'s text, which must then
   * hold everything the player has seen (a game whose observation forgets must declare this).
   */
  readonly informationState?: (state: State, player: Player) => string;
  /** The moves the rules allow the player to move now (non-empty while the game runs). */
  readonly legalMoves: (state: State) => readonly Move[];
  /** A move as the text a player writes for it; unless `moveId` says otherwise, also its identity. */
  readonly moveText: (move: Move) => string;
  /** A move's stable id (what policy tables and replays key moves by); absent: its text. Two moves with one id are one move. */
  readonly moveId?: (move: Move) => string;
  /**
   * Reads a move out of a player's text. `legal` is `legalMoves(state)`. A parser that throws is a coded error.
   * Absent: the default parser, which takes the legal move whose text comes first in the answer (firstLegalMove).
   */
  readonly parse?: (text: string, legal: readonly Move[], state: State) => ParsedMove<Move>;
  readonly apply: (state: State, move: Move) => State;
  /** What each player gets when the game is over (before any penalty for an illegal move). */
  readonly payoffs: (state: State) => Readonly<Record<Player, number>>;
  /** Rewards for one move (reward shaping): a number to the mover, or a record to any players; each paid at the end of that player's latest turn. */
  readonly moveReward?: (before: State, move: Move, after: State, player: Player) => MoveRewards<Player>;
  /** What the payoffs are (zero-sum, their range) and so what a win is; absent: zero-sum, a win is more than every other. */
  readonly utility?: Utility;
  /** Moves after which a game that has not ended is stopped (a draw: every payoff 0, as SPIRAL truncates). */
  readonly turnLimit: number;
  /** The legal moves as the prompt states them, when listing every one would be long (a negotiation's offers); all of them, comma-separated, when absent. */
  readonly legalText?: (state: State, legal: readonly Move[]) => string;
  /** Numbers per player the metrics report at the end (a negotiation's deal), beside win, draw and loss. */
  readonly labels?: (state: State) => Readonly<Record<Player, Readonly<Record<string, number>>>>;
  /** The state as the viewer draws it; `viewer` null is a spectator, who sees no hidden cards until the end. */
  readonly render?: (state: State, viewer: Player | null) => WorldScene;
  /** Where the rules come from (a paper, a repository), for the reader. */
  readonly rules?: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyWorld = World<any, any, any>;

/**
 * What a player does after an illegal or unparseable move: forfeit at once (SPIRAL: the game ends, the offender gets
 * `penalty`, every other player `others`), or write again up to `retries` times before forfeiting.
 */
export type IllegalMovePolicy =
  | { readonly kind: 'forfeit'; readonly penalty: number; readonly others: number }
  | { readonly kind: 'retry'; readonly retries: number; readonly penalty: number; readonly others: number };

/** SPIRAL's rule (train_spiral.py): an invalid action ends the game, −1.5 to its author and 0.5 to the other. */
export const SPIRAL_FORFEIT: IllegalMovePolicy = { kind: 'forfeit', penalty: -1.5, others: 0.5 };

/** What a player is given to move on: what a model's prompt is made of, as data. */
export interface PlayerView<Move, Player extends string = string> {
  readonly player: Player;
  readonly observation: string;
  readonly informationState: string;
  readonly legal: readonly Move[];
}

/** A reference opponent that sees the whole state, hidden cards included: declared as one with `oracle(…)`. */
export interface OraclePlayer<State, Move, Player extends string = string> {
  readonly oracle: (state: State, player: Player, legal: readonly Move[], rng: Rng) => Move;
}

/**
 * A scripted player (random, a Nash policy, a bargainer): its move from what a model in its seat would be given (its
 * observation, its information state, the legal moves) and its own coins; or an oracle, declared as one, that sees
 * the whole state (a minimax over a perfect-information board, a cheat for tests).
 */
export type ScriptedPlayer<State, Move, Player extends string = string> = ((view: PlayerView<Move, Player>, rng: Rng) => Move) | OraclePlayer<State, Move, Player>;

/** Declares a reference opponent that sees the whole state. */
export function oracle<State, Move, Player extends string = string>(play: OraclePlayer<State, Move, Player>['oracle']): OraclePlayer<State, Move, Player> {
  return { oracle: play };
}
