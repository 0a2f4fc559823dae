import type { Problem } from '../../core/tasks/task.ts';
import { arenaFor, type Sampling } from '../../engine/match/arena.ts';
import { DecoderPool } from '../../engine/match/decoder-pool.ts';
import type { MatchBroadcast } from '../../engine/match/match-events.ts';
import type { MatchSeeds } from '../../engine/match/match-seeds.ts';
import type { MatchRuntime } from '../../engine/match/runtime.ts';
import { playMatches } from '../../engine/match/play-matches.ts';
import { Decoder } from '../../native/runtime/decoder.ts';
import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import type { PlayedLineup } from './contests.ts';
import type { EntrantCache } from './entrant-cache.ts';
import type { TournamentGame } from './entrants.ts';
import type { Lineup } from './lineups.ts';

/** Decoders of one tuple width kept for reuse: two, so a sequential game's two entrants each keep theirs (ours). */
const SLOTS_PER_WIDTH = 2;

/**
 * Decoders reused from lineup to lineup: per width of tuple (a solo turn's one policy, a co-decoded turn's authors) up
 * to two, the least recently used one taking the next lineup's entrants in place (recompiled, its caches kept), so a
 * round allocates its key-value caches once and holds a bounded number of decoders however many entrants play.
 */
export class LineupDecoders extends DecoderPool {
  private readonly held: { decoder: Decoder; names: string[]; versions: number[] }[] = [];

  constructor(
    private readonly source: EntrantCache,
    options: ConstructorParameters<typeof DecoderPool>[1],
  ) {
    super(source, options);
  }

  override async get(names: readonly string[]): Promise<Decoder> {
    const sameWidth = this.held.filter((h) => h.names.length === names.length);
    let slot = sameWidth.find((h) => h.names.every((name, i) => name === names[i]));
    if (!slot && sameWidth.length < SLOTS_PER_WIDTH) {
      const decoder = await Decoder.create(
        names.map((name) => this.source.policy(name)),
        { batch: this.rows, maxLen: this.options.maxLen, threads: this.options.threads, device: this.options.device },
      );
      slot = { decoder, names: [...names], versions: names.map((name) => this.source.version(name)) };
      this.held.push(slot);
    }
    slot ??= sameWidth[0];
    for (const [index, name] of names.entries()) {
      const version = this.source.version(name);
      if (slot.names[index] === name && slot.versions[index] === version) continue;
      await slot.decoder.updatePolicy(index, this.source.policy(name));
      slot.names[index] = name;
      slot.versions[index] = version;
    }
    this.held.splice(this.held.indexOf(slot), 1);
    this.held.push(slot);
    return slot.decoder;
  }

  override async release(): Promise<void> {
    for (const { decoder } of this.held) await decoder.release();
    this.held.length = 0;
  }
}

/** What a game's matches are played with: one arena per game (its boundaries computed once), decoders reused across lineups. */
export interface RoundTable {
  readonly cache: EntrantCache;
  readonly decoders: LineupDecoders;
  /** What matches are played on: the decoders, with endpoint entrants routed to their endpoints (EndpointRuntime). */
  readonly runtime: MatchRuntime;
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
 * cache evicts others past its capacity) and the decoders take them in place of the last lineup's, so memory holds
 * one lineup's models however many entrants the pool has. `beforeLineup` may stop the round (a run cut short, resumed later).
 */
export async function playLineups(
  table: RoundTable,
  game: TournamentGame,
  lineups: readonly Lineup[],
  deal: Deal,
  options: { broadcast?: MatchBroadcast; beforeLineup?: () => boolean },
): Promise<PlayedLineup[] | undefined> {
  const played: PlayedLineup[] = [];
  const arena = arenaFor(game.game, table.runtime, table.tokenizer, table.stopTokens, table.sampling);
  for (const lineup of lineups) {
    if (options.beforeLineup && !options.beforeLineup()) return undefined;
    await table.cache.use([...new Set(Object.values(lineup.seats))]);
    const matches = await playMatches(arena, { problems: deal.problems, copies: deal.copies, seats: lineup.seats, seeds: deal.seeds, label: `${deal.label}/${lineup.key}`, broadcast: options.broadcast });
    played.push({ lineup, matches });
  }
  return played;
}
