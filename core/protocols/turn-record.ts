import type { ToolCallNote } from '../tools/tool-calls.ts';
import type { WorldTurnNote } from '../world/world-match.ts';
import type { WorldScene } from '../world/world.ts';

/**
 * Why a generation ended: a stop token (EOS), the token budget, a stop string of the turn, an abort, or a tool call
 * past the turn's call budget.
 */
export type FinishReason = 'stop' | 'length' | 'stop-sequence' | 'aborted' | 'calls';

/**
 * One turn of a match: one generation, written by one role (sequential protocols) or by several token by token
 * (co-decoding: `role` is the protocol's first author and `authors` names the writer of every token). What views,
 * prompt templates and reward rules read.
 */
export interface TurnRecord<Role extends string> {
  readonly turn: number;
  readonly role: Role;
  /** The response as sampled, its stop token included. */
  readonly tokens: readonly number[];
  /** The response decoded once, as a whole, stop tokens left out. */
  readonly text: string;
  /** Co-decoding only: the role that wrote each token. */
  readonly authors?: readonly Role[];
  readonly finish?: FinishReason;
  /** Indices of the tokens that end a reasoning step ("\n\n", and the last token), as played. */
  readonly stepEnds?: readonly number[];
  /** Hidden information (a drafter's withheld answer, a verifier's private verdict); views strip it. */
  readonly secret?: Readonly<Record<string, unknown>>;
  /** A world game's turn: the move it made, or why it made none. */
  readonly world?: WorldTurnNote;
  /** A world game's state after this turn as a spectator sees it (the game's renderer), for the viewer. */
  readonly scene?: WorldScene;
  /** A turn that may call tools: each call it made, in order (its results are the tokens authored `env`). */
  readonly toolCalls?: readonly ToolCallNote[];
}
