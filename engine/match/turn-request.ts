import type { ToolUse } from '../../core/tools/tool-use.ts';

/** One whole turn to generate: who writes it in which match, from what prompt, with which budget and seed. */
export interface TurnRequest<Role extends string = string> {
  readonly matchId: string;
  readonly turn: number;
  readonly role: Role;
  readonly policy: string;
  readonly promptIds: readonly number[];
  readonly maxTokens: number;
  readonly stop?: readonly string[];
  /** The row's sampling seed: where the turn sits in a batch does not change it. */
  readonly seed: number;
  /** The tools the turn may call (engine/match/tool-turns.ts); a turn without them is one generation. */
  readonly tools?: ToolUse;
}
