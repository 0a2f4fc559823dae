import type { AnyGame, Catalog } from '../core/catalog.ts';
import type { WorldProtocol } from '../core/protocols/world.ts';
import { composePlugins } from './compose.ts';

/** A world game's world and its reference opponents (`scripted`), as its protocol holds them. */
export type CatalogWorld = Pick<WorldProtocol<string>, 'world' | 'scripted'>;

/** The worlds of the catalog's world games, with their reference opponents, by game name (built with their default knobs). */
export async function catalogWorlds(catalog?: Catalog): Promise<Record<string, CatalogWorld>> {
  const games = (catalog ?? (await composePlugins())).games;
  const worlds: Record<string, CatalogWorld> = {};
  for (const name of games.names) {
    let protocol: AnyGame['protocol'];
    try {
      protocol = games.create(name, { grader: () => ({ answer_present: false, correct: false }), knobs: {} }).protocol;
    } catch {
      continue; // a game that needs knobs to be built is not a world game with defaults
    }
    if (protocol.family === 'world') worlds[name] = { world: protocol.world, ...(protocol.scripted ? { scripted: protocol.scripted } : {}) };
  }
  return worlds;
}
