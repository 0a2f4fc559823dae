import { fail } from '../errors.ts';

/** Games by id; two games under one id is a configuration error, not a silent override. */
export function indexGames<G extends { readonly id: string }>(games: readonly G[]): ReadonlyMap<string, G> {
  const byId = new Map<string, G>();
  for (const game of games) {
    if (byId.has(game.id)) fail('CONFIG_INVALID', `two games share the id "${game.id}"`, { game: game.id });
    byId.set(game.id, game);
  }
  return byId;
}
