import { fail } from '../../core/errors.ts';
import type { MatchState } from '../../core/game/match-state.ts';
import { pendingTurn, type PendingTurn, type SequentialProtocol, type SequentialState } from '../../core/protocols/sequential.ts';
import type { Problem } from '../../core/tasks/task.ts';
import type { SequentialArena } from './sequential-arena.ts';

/** A match between turns: plain data, as views and reward rules read it. */
export interface RunningMatch<Role extends string> {
  readonly state: MatchState<Role, Problem>;
  readonly turns: SequentialState<Role>;
}

export function protocolOf<Role extends string>(arena: SequentialArena<Role>): SequentialProtocol<Role, Problem> {
  const { protocol } = arena.game;
  return protocol.family === 'sequential' ? protocol : fail('CONFIG_INVALID', `game "${arena.game.id}": protocol "${protocol.name}" is not sequential`);
}

/** The next turn, its prompt rendered from what the acting role may see of the earlier turns; undefined when over. */
export function pendingPrompt<Role extends string>(arena: SequentialArena<Role>, match: RunningMatch<Role>): PendingTurn<Role, Problem> | undefined {
  const protocol = protocolOf(arena);
  if (match.turns.current === undefined) return undefined;
  const actor = protocol.turns[match.turns.current].role;
  const seen = arena.game.view(match.state, actor).transcript;
  return pendingTurn(protocol, { ...match.turns, played: seen }, match.state.problem);
}
