import type { Game } from '../../core/game/define-game.ts';
import type { Problem } from '../../core/tasks/task.ts';
import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import { stepBoundaryIds } from '../../plugins/tokenizers/step-boundary.ts';
import { wordBoundary } from '../../plugins/tokenizers/word-boundary.ts';
import type { DecoderPool } from './decoder-pool.ts';

export interface Sampling {
  readonly temperature: number;
  readonly topP: number;
  /** The response budget of a co-decoded turn (a sequential turn has its own, in its spec). */
  readonly maxNewTokens: number;
}

/** What playing a game's matches needs: its decoders, the shared tokenizer with its boundaries, the stop tokens, sampling. */
export interface Arena<Role extends string = string> {
  readonly game: Game<Role, Problem>;
  readonly decoders: DecoderPool;
  readonly tokenizer: TextTokenizer;
  /** Word-initial token ids (word handoff) and ids whose text holds "\n\n" (step ends). */
  readonly wordBoundary: readonly number[];
  readonly stepBoundary: readonly number[];
  readonly stopTokens: readonly number[];
  readonly sampling: Sampling;
  /** A prompt's text as the policies read it. */
  readonly encodePrompt: (text: string) => number[];
}

/** An arena for a game: the tokenizer's word and step boundaries, the model's stop tokens, prompts encoded as they are. */
export function arenaFor<Role extends string>(
  game: Game<Role, Problem>,
  decoders: DecoderPool,
  tokenizer: TextTokenizer,
  stopTokens: readonly number[],
  sampling: Sampling,
): Arena<Role> {
  return {
    game,
    decoders,
    tokenizer,
    wordBoundary: Array.from(wordBoundary(tokenizer).ids),
    stepBoundary: stepBoundaryIds(tokenizer),
    stopTokens,
    sampling,
    encodePrompt: (text) => tokenizer.encode(text),
  };
}
