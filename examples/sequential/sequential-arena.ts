import type { Game } from '../../core/game/define-game.ts';
import type { Decoder } from '../../native/runtime/decoder.ts';
import type { Problem } from '../../core/tasks/task.ts';
import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';

/** What playing a sequential game needs: `seats[role]` is the decoder policy that plays the role. */
export interface SequentialArena<Role extends string> {
  readonly game: Game<Role, Problem>;
  readonly decoder: Decoder;
  readonly tokenizer: TextTokenizer;
  readonly seats: Readonly<Record<Role, number>>;
  readonly stopTokens: readonly number[];
  readonly sampling: { readonly temperature: number; readonly topP: number };
}
