import type { CoDecodingProtocol } from './co-decoding.ts';
import type { SequentialProtocol } from './sequential.ts';

/** How roles take turns on a shared transcript: several write one response, or each writes whole turns. */
export type Protocol<Role extends string, Problem> = CoDecodingProtocol<Role> | SequentialProtocol<Role, Problem>;

/** Every role the protocol ever lets act. */
export function actingRoles<Role extends string, Problem>(protocol: Protocol<Role, Problem>): readonly Role[] {
  const roles = protocol.family === 'co-decoding' ? protocol.authors : protocol.turns.map((turn) => turn.role);
  return [...new Set(roles)];
}

