import type { ToolUse } from '../tools/tool-use.ts';
import type { AnyWorld, IllegalMovePolicy, ScriptedPlayer } from '../world/world.ts';

/**
 * A game with a world (SPIRAL, TextArena): the world decides whose turn it is, what each player sees and when the
 * match ends; each turn is one player's whole generation, read as a move by the world's parser.
 */
export interface WorldProtocol<Role extends string> {
  readonly family: 'world';
  readonly name: string;
  readonly world: AnyWorld & { readonly players: readonly Role[] };
  /** The response budget of one move. */
  readonly maxTokens: number;
  readonly stop?: readonly string[];
  /** Tools a player may call within a move (`toolUse`); the move is read from what the player wrote after the last result. */
  readonly tools?: ToolUse;
  readonly illegal: IllegalMovePolicy;
  /**
   * Reference opponents by name (random legal, minimax, a Nash policy): a seat given `scripted:<name>` is played by
   * this function instead of a model.
   */
  // biome-ignore lint/suspicious/noExplicitAny: each scripted player has its own world's state and move types.
  readonly scripted?: Readonly<Record<string, ScriptedPlayer<any, any, Role>>>;
}

/** The seat name of a reference opponent: `scripted:minimax`. */
export const SCRIPTED_PREFIX = 'scripted:';

/** The reference opponent a seat names, or undefined for a model's seat. */
export function scriptedName(seat: string): string | undefined {
  return seat.startsWith(SCRIPTED_PREFIX) ? seat.slice(SCRIPTED_PREFIX.length) : undefined;
}
