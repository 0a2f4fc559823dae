import type { AnyGame, Catalog } from '../core/catalog.ts';
import type { AnyWorld } from '../core/world/world.ts';
import { composePlugins } from './compose.ts';

/** The worlds of the catalog's world games, by game name (built with their default knobs). */
export async function catalogWorlds(catalog?: Catalog): Promise<Record<string, AnyWorld>> {
  const games = (catalog ?? (await composePlugins())).games;
  const worlds: Record<string, AnyWorld> = {};
  for (const name of games.names) {
    let protocol: AnyGame['protocol'];
    try {
      protocol = games.create(name, { grader: () => ({ answer_present: false, correct: false }), knobs: {} }).protocol;
    } catch {
      continue; // a game that needs knobs to be built is not a world game with defaults
    }
    if (protocol.family === 'world') worlds[name] = protocol.world;
  }
  return worlds;
}
