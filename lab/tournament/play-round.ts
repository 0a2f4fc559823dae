import type { Problem } from '../../core/tasks/task.ts';
import type { Arena, Sampling } from '../../engine/match/arena.ts';
import { arenaFor } from '../../engine/match/arena.ts';
import { DecoderPool } from '../../engine/match/decoder-pool.ts';
import type { MatchBroadcast } from '../../engine/match/match-events.ts';
import type { MatchSeeds } from '../../engine/match/match-seeds.ts';
import { playMatches } from '../../engine/match/play-matches.ts';
import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import type { PlayedLineup } from './contests.ts';
import type { EntrantCache } from './entrant-cache.ts';
import type { TournamentGame } from './entrants.ts';
import type { Lineup } from './lineups.ts';

/** What a game's matches are played with: one arena per game (its boundaries computed once), decoders per lineup. */
export interface RoundTable {
  readonly cache: EntrantCache;
  readonly tokenizer: TextTokenizer;
  readonly stopTokens: readonly number[];
  readonly sampling: Sampling;
  readonly threads?: number;
}

/** The round's duplicate deal of one game: every lineup plays these problems, `copies` times each, from these seeds. */
export interface Deal {
  readonly problems: readonly Problem[];
  readonly copies: number;
  readonly seeds: MatchSeeds;
  readonly label: string;
}

/**
 * Plays a game's lineups one after another through the match engine: only the lineup's entrants are loaded (the
 * cache evicts others past its capacity) and their decoder lives for that lineup alone, so memory holds one lineup's
 * models however many entrants the pool has. `beforeLineup` may stop the round (a run cut short, resumed later).
 */
export async function playLineups(
  table: RoundTable,
  game: TournamentGame,
  lineups: readonly Lineup[],
  deal: Deal,
  options: { broadcast?: MatchBroadcast; beforeLineup?: () => boolean },
): Promise<PlayedLineup[] | undefined> {
  const played: PlayedLineup[] = [];
  let base: Omit<Arena, 'decoders'> | undefined;
  for (const lineup of lineups) {
    if (options.beforeLineup && !options.beforeLineup()) return undefined;
    const entrants = [...new Set(Object.values(lineup.seats))];
    await table.cache.use(entrants);
    const maxLen = Math.min(...entrants.map((name) => table.cache.policy(name).config.maxPositionEmbeddings));
    const decoders = new DecoderPool(table.cache, { rows: deal.problems.length * deal.copies, maxLen, threads: table.threads });
    base ??= arenaFor(game.game, decoders, table.tokenizer, table.stopTokens, table.sampling);
    try {
      const matches = await playMatches({ ...base, decoders }, { problems: deal.problems, copies: deal.copies, seats: lineup.seats, seeds: deal.seeds, label: `${deal.label}/${lineup.key}`, broadcast: options.broadcast });
      played.push({ lineup, matches });
    } finally {
      await decoders.release();
    }
  }
  return played;
}
