import { fail } from '../../core/errors.ts';
import type { LudusEmitter } from '../../core/events.ts';
import { deriveSeed } from '../../core/rng.ts';
import { Decoder } from '../../native/runtime/decoder.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';
import { taskByName } from '../../plugins/tasks/registry.ts';
import { EventStream } from './event-stream.ts';
import { MatchBroadcast, tokenTexts } from './match-events.ts';
import { arenaFor, playMatches } from './play-matches.ts';
import type { PlayedMatch } from './played-match.ts';
import type { RlGame } from '../../core/game/rl-game.ts';
import type { TrainConfig } from '../trainer/train-config.ts';
import { authorsOf } from '../trainer/trainer.ts';

export interface MatchSessionOptions {
  readonly game: RlGame<string>;
  /** The model, task, seed and sampling of the training config. */
  readonly config: TrainConfig;
  readonly events?: LudusEmitter;
  /** Wait this long after each decoded token (for watching at reading speed). */
  readonly paceMs?: number;
  readonly threads?: number;
}

export interface MatchSession {
  /** Plays one match on test problem `index`; one at a time, in call order. */
  play(index: number): Promise<PlayedMatch>;
  release(): Promise<void>;
}

/**
 * Matches of a registered game with every role played by the base model, one at a time, published as they are
 * decoded: what `ludus match` shows. Seeds come from (run seed, problem index), so a match replays.
 */
export async function openMatchSession(options: MatchSessionOptions): Promise<MatchSession> {
  const { game, config } = options;
  const base = await loadPolicy(resolveModelDir(config.model, config.task));
  const tokenizer = base.tokenizer ?? fail('CHECKPOINT_MISSING_FILE', `${config.model}: a match needs a tokenizer.json in the model directory`);
  const authors = authorsOf(game);
  const decoder = await Decoder.create(
    authors.map(() => base.policy),
    { batch: 1, maxLen: base.policy.config.maxPositionEmbeddings, threads: options.threads },
  );
  const arena = arenaFor(game, decoder, tokenizer, base.policy.config.eosTokenIds, { temperature: config.temperature, topP: config.topP, maxNewTokens: config.maxNewTokens });
  const task = await taskByName(config.task);
  const seats = Object.fromEntries(game.roles.map((role) => [role, 'base']));
  const broadcast = new MatchBroadcast(new EventStream(options.events), game.id, seats, authors, tokenTexts(tokenizer, arena.stopTokens), options.paceMs ?? 0);
  let queue: Promise<unknown> = Promise.resolve();
  return {
    play(index) {
      const played = queue.then(async () => {
        const seeds = { generation: deriveSeed(config.seed, index, 1), schedule: deriveSeed(config.seed, index, 2) };
        const [match] = await playMatches(arena, [task.sample('test', index)], 1, seeds, `match-${index}`, broadcast);
        broadcast.finish(match, game.trainable[0]);
        return match;
      });
      queue = played.catch(() => undefined);
      return played;
    },
    release: async () => {
      await queue;
      await decoder.release();
    },
  };
}
