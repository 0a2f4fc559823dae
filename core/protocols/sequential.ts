import { fail } from '../errors.ts';
import type { ToolUse } from '../tools/tool-use.ts';
import { TurnOrder } from './turn-order.ts';
import type { TurnRecord } from './turn-record.ts';

/** One kind of turn: a whole generation by `role`, prompted from the earlier turns through `template`. */
export interface TurnSpec<Role extends string, Problem> {
  readonly role: Role;
  readonly template: (earlierTurns: readonly TurnRecord<Role>[], problem: Problem) => string;
  readonly maxTokens: number;
  readonly stop?: readonly string[];
  /** Tools the turn may call (`toolUse`): a call stops the turn, its result is appended as `env` tokens, and the turn goes on. */
  readonly tools?: ToolUse;
}

/** Each turn is a whole generation by one role (generator → verifier; draft → challenge; debate). */
export interface SequentialProtocol<Role extends string, Problem> {
  readonly family: 'sequential';
  readonly name: string;
  readonly turns: readonly TurnSpec<Role, Problem>[];
  /** Which listed turn comes next; every turn once, in order, when absent. */
  readonly order?: TurnOrder;
}

/** Where a sequential match stands: the turns played and the listed turn to play next (undefined: the match is over). */
export interface SequentialState<Role extends string> {
  readonly played: readonly TurnRecord<Role>[];
  readonly current: number | undefined;
}

export interface PendingTurn<Role extends string, Problem> {
  readonly index: number;
  readonly spec: TurnSpec<Role, Problem>;
  readonly prompt: string;
}

export function startTurns<Role extends string, Problem>(protocol: SequentialProtocol<Role, Problem>): SequentialState<Role> {
  const order = protocol.order ?? TurnOrder.ONCE;
  return { played: [], current: checkedIndex(protocol.name, protocol.turns.length, order.first({ turnCount: protocol.turns.length, played: [] })) };
}

/** The turn to play now, with its prompt rendered from the earlier turns; undefined once the order has ended. */
export function pendingTurn<Role extends string, Problem>(
  protocol: SequentialProtocol<Role, Problem>,
  state: SequentialState<Role>,
  problem: Problem,
): PendingTurn<Role, Problem> | undefined {
  if (state.current === undefined) return undefined;
  const spec = protocol.turns[state.current];
  return { index: state.current, spec, prompt: spec.template(state.played, problem) };
}

/** The state after the pending turn was played as `record`. */
export function recordTurn<Role extends string, Problem>(
  protocol: SequentialProtocol<Role, Problem>,
  state: SequentialState<Role>,
  record: Omit<TurnRecord<Role>, 'turn'>,
): SequentialState<Role> {
  if (state.current === undefined) fail('INPUT_INVALID', `${protocol.name}: a turn was recorded after the match ended`);
  const current = state.current;
  const expected = protocol.turns[current].role;
  if (record.role !== expected) fail('INPUT_INVALID', `${protocol.name}: turn ${state.played.length} belongs to "${expected}", not "${record.role}"`);
  const played = [...state.played, { ...record, turn: state.played.length }];
  const order = protocol.order ?? TurnOrder.ONCE;
  return { played, current: checkedIndex(protocol.name, protocol.turns.length, order.next({ turnCount: protocol.turns.length, played, current })) };
}

function checkedIndex(protocolName: string, turnCount: number, index: number | undefined): number | undefined {
  if (index !== undefined && !(Number.isInteger(index) && index >= 0 && index < turnCount)) {
    fail('CONFIG_INVALID', `${protocolName}: turn order chose turn ${index}, but the protocol lists ${turnCount}`);
  }
  return index;
}
