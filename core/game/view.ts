import type { MatchState } from './match-state.ts';

/** What `viewer` may see of a match: every broadcast and every prompt passes through it. `null` is a spectator. */
export type View<Role extends string, Problem> = (state: MatchState<Role, Problem>, viewer: Role | null) => MatchState<Role, Problem>;

/** Nothing is hidden. */
export const revealAll = <Role extends string, Problem>(state: MatchState<Role, Problem>): MatchState<Role, Problem> => state;

/** Each role sees the secrets of its own turns only; a spectator sees none. */
export const ownSecretsOnly = <Role extends string, Problem>(state: MatchState<Role, Problem>, viewer: Role | null): MatchState<Role, Problem> => ({
  ...state,
  transcript: state.transcript.map(({ secret, ...record }) => (secret !== undefined && record.role === viewer ? { ...record, secret } : record)),
});

/** Secrets stay with their owners while the match runs and are revealed to everyone once it has finished. */
export const secretsUntilFinished = <Role extends string, Problem>(state: MatchState<Role, Problem>, viewer: Role | null): MatchState<Role, Problem> =>
  state.finished ? state : ownSecretsOnly(state, viewer);
