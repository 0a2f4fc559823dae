import type { LudusEmitter } from '../../core/events.ts';
import type { AnyGame } from '../../core/catalog.ts';
import { deriveSeed } from '../../core/rng.ts';
import { taskByName } from '../../plugins/tasks/registry.ts';
import { PolicyPool } from '../policies/policy-pool.ts';
import { arenaFor, type Sampling } from './arena.ts';
import { DecoderPool } from './decoder-pool.ts';
import { EventStream } from './event-stream.ts';
import { MatchBroadcast, tokenTexts } from './match-events.ts';
import { playMatches } from './play-matches.ts';
import type { PlayedMatch } from './played-match.ts';

export interface MatchSessionOptions {
  readonly game: AnyGame;
  readonly task: string;
  /** Model directory (or 'default') for every policy of the game, unless `policies` names one. */
  readonly model: string;
  readonly policies?: Readonly<Record<string, string>>;
  readonly seed: number;
  readonly sampling: Sampling;
  readonly events?: LudusEmitter;
  /** Wait this long after each decoded token (for watching at reading speed). */
  readonly paceMs?: number;
  readonly threads?: number;
}

export interface MatchSession {
  /** Token ids as text (the policies' shared tokenizer). */
  decode(ids: readonly number[]): string;
  /** Plays one match on test problem `index`, seated as the game's rotation seats its first step; one at a time, in call order. */
  play(index: number): Promise<PlayedMatch>;
  release(): Promise<void>;
}

/**
 * Matches of any game, one at a time, every policy frozen, published as they are decoded: what `ludus match`
 * shows. Seeds come from (seed, problem index), so a match replays.
 */
export async function openMatchSession(options: MatchSessionOptions): Promise<MatchSession> {
  const { game } = options;
  const pool = await PolicyPool.load(
    game.policies.map((name) => ({ name, init: options.policies?.[name] ?? options.model, trainable: false })),
    { task: options.task },
  );
  const first = pool.policy(game.policies[0]);
  const stopTokens = first.config.eosTokenIds;
  const decoders = new DecoderPool(pool, { rows: 1, maxLen: first.config.maxPositionEmbeddings, threads: options.threads });
  const arena = arenaFor(game, decoders, pool.tokenizer, stopTokens, options.sampling);
  const task = await taskByName(options.task);
  const broadcast = new MatchBroadcast(new EventStream(options.events), game.id, tokenTexts(pool.tokenizer, stopTokens), options.paceMs ?? 0);
  const seats = game.rotation.at(0).seats;
  let queue: Promise<unknown> = Promise.resolve();
  return {
    decode: (ids) => pool.tokenizer.decode(ids),
    play(index) {
      const played = queue.then(async () => {
        const seeds = { generation: deriveSeed(options.seed, index, 1), schedule: deriveSeed(options.seed, index, 2) };
        const [match] = await playMatches(arena, { problems: [task.sample('test', index)], copies: 1, seats, seeds, label: `match-${index}`, broadcast });
        return match;
      });
      queue = played.catch(() => undefined);
      return played;
    },
    release: async () => {
      await queue;
      await decoders.release();
    },
  };
}
