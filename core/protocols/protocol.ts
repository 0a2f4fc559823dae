import type { CoDecodingProtocol } from './co-decoding.ts';
import type { SequentialProtocol } from './sequential.ts';
import type { WorldProtocol } from './world.ts';

/** How roles take turns on a shared transcript: several write one response, each writes whole turns, or players move in a world. */
export type Protocol<Role extends string, Problem> = CoDecodingProtocol<Role> | SequentialProtocol<Role, Problem> | WorldProtocol<Role>;

/** Every role the protocol ever lets act. */
export function actingRoles<Role extends string, Problem>(protocol: Protocol<Role, Problem>): readonly Role[] {
  const roles = protocol.family === 'co-decoding' ? protocol.authors : protocol.family === 'world' ? protocol.world.players : protocol.turns.map((turn) => turn.role);
  return [...new Set(roles)];
}


/** The other roles that write `role`'s answer with it, token by token (co-decoding); none when it writes alone. */
export function coAuthors<Role extends string, Problem>(protocol: Protocol<Role, Problem>, role: Role): readonly Role[] {
  return protocol.family === 'co-decoding' && protocol.authors.includes(role) ? protocol.authors.filter((author) => author !== role) : [];
}

/** How an accuracy of `role` was measured, in words: `solo`, or `co-written with junior`. */
export function writtenHow<Role extends string, Problem>(protocol: Protocol<Role, Problem>, role: Role): string {
  const others = coAuthors(protocol, role);
  return others.length === 0 ? 'solo' : `co-written with ${others.join(', ')}`;
}
