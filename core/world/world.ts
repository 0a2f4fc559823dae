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

/**
 * A game with a world (SPIRAL, TextArena, OpenSpiel): a pure state machine over plain-data states, as boardgame.io's
 * `Game<G>` is. Chance lives in `setup` (the deal), which gets the match's seeded RNG; everything after it is
 * deterministic in the moves, so a match replays from (seed, moves). Hidden information stays hidden because a
 * player's prompt is built from `observe(state, player)` only, never from another player's text.
 */
export interface World<State, Move, Player extends string = string> {
  readonly id: string;
  readonly players: readonly Player[];
  /** The initial state; all of the game's chance (dealt cards, private values) drawn here from `rng`. */
  readonly setup: (rng: Rng) => State;
  /** Whose turn it is; undefined once the game is over. */
  readonly toMove: (state: State) => Player | undefined;
  /** What `player` may see now, as text: their own cards, the public history; never another player's secrets. */
  readonly observe: (state: State, player: Player) => string;
  /** The moves the rules allow the player to move now (non-empty while the game runs). */
  readonly legalMoves: (state: State) => readonly Move[];
  /** A move as the text a player writes for it (also its identity: two moves with one text are one move). */
  readonly moveText: (move: Move) => string;
  /** Reads a move out of a player's text. `legal` is `legalMoves(state)`. A parser that throws is a coded error. */
  readonly parse: (text: string, legal: readonly Move[], state: State) => ParsedMove<Move>;
  readonly apply: (state: State, move: Move) => State;
  /** What each player gets when the game is over (before any penalty for an illegal move). */
  readonly payoffs: (state: State) => Readonly<Record<Player, number>>;
  /** An optional reward to the mover for one move (reward shaping), paid at the last token of that turn. */
  readonly moveReward?: (before: State, move: Move, after: State, player: Player) => number;
  /** Moves after which a game that has not ended is stopped (a draw: every payoff 0, as SPIRAL truncates). */
  readonly turnLimit: number;
  /** The legal moves as the prompt states them, when listing every one would be long (a negotiation's offers); all of them, comma-separated, when absent. */
  readonly legalText?: (state: State, legal: readonly Move[]) => string;
  /** Numbers per player the metrics report at the end (a negotiation's deal), beside win, draw and loss. */
  readonly labels?: (state: State) => Readonly<Record<Player, Readonly<Record<string, number>>>>;
  /** Exact measures of a small game (Kuhn Poker's exploitability), computed from a policy's move probabilities. */
  readonly exact?: ExactMeasures<State>;
  /** The state as the viewer draws it; `viewer` null is a spectator, who sees no hidden cards until the end. */
  readonly render?: (state: State, viewer: Player | null) => WorldScene;
  /** Where the rules come from (a paper, a repository), for the reader. */
  readonly rules?: string;
}

/** One information set: the state a player decides in (any of its states: the prompt is the same), and its key. */
export interface InformationSet<State> {
  readonly key: string;
  readonly player: string;
  readonly state: State;
}

/**
 * A small game's exact measures (OpenSpiel's): its information sets, and the exploitability of a policy given as move
 * probabilities per information set, (best-response value against each player's side, summed) / players.
 */
export interface ExactMeasures<State> {
  readonly informationSets: () => readonly InformationSet<State>[];
  /** `policy[key][moveText]`: the probability of the move at that information set. */
  readonly exploitability: (policy: Readonly<Record<string, Readonly<Record<string, number>>>>) => number;
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

/** A scripted player (random, minimax, a Nash policy): the move it makes, from the full state and its own coins. */
export type ScriptedPlayer<State, Move, Player extends string = string> = (state: State, player: Player, legal: readonly Move[], rng: Rng) => Move;
