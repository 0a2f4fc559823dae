import type { AnyGame } from '../../core/catalog.ts';
import { fail } from '../../core/errors.ts';
import type { Split, Task } from '../../core/tasks/task.ts';
import { arenaFor } from '../../engine/match/arena.ts';
import { DecoderPool } from '../../engine/match/decoder-pool.ts';
import { validationSeeds } from '../../engine/match/match-seeds.ts';
import { PolicyPool } from '../../engine/policies/policy-pool.ts';
import { validate, type Validation } from '../../engine/trainer/validate.ts';
import type { ChatTemplateMode } from '../../plugins/tokenizers/prompt-text.ts';

export interface GameValidationOptions {
  readonly game: AnyGame;
  /** Model directory of each of the game's policies, none of them trained here. */
  readonly policies: Readonly<Record<string, string>>;
  /** The task with its validation split (`tasksOfRun`), and its name for the shipped model's lookup. */
  readonly task: Task;
  readonly taskName: string;
  readonly problems: number;
  /** The run seed: validation matches use the seeds a training's validation at step 0 would. */
  readonly seed: number;
  readonly temperature: number;
  readonly topP: number;
  readonly rows: number;
  readonly chatTemplate?: ChatTemplateMode;
  readonly threads?: number;
  /** The split played: `validation` (the default, the curves' common start) or `test` (a held-out evaluation). */
  readonly split?: Split;
}

/** A training's validation (step 0) played by untrained models: the curves' common start of an experiment; or, with `split: 'test'`, the game played on held-out problems. */
export async function validateGame(options: GameValidationOptions): Promise<Validation> {
  const { game } = options;
  const pool = await PolicyPool.load(
    game.policies.map((name) => ({ name, init: options.policies[name] ?? fail('INPUT_INVALID', `no model for policy "${name}" of game "${game.id}"`, { policy: name }), trainable: false })),
    { task: options.taskName },
  );
  const first = pool.policy(game.policies[0]);
  const decoders = new DecoderPool(pool, { rows: options.rows, maxLen: first.config.maxPositionEmbeddings, threads: options.threads });
  try {
    const arena = arenaFor(game, decoders, pool.tokenizer, first.config.eosTokenIds, { temperature: options.temperature, topP: options.topP, maxNewTokens: 0 }, { chatTemplate: options.chatTemplate });
    return await validate(arena, options.task, options.split ?? 'validation', options.problems, validationSeeds(options.seed, 0), game.rotation.at(0).seats, game.validateOn);
  } finally {
    await decoders.release();
  }
}
