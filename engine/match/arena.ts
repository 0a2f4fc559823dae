import type { Game } from '../../core/game/define-game.ts';
import type { Problem } from '../../core/tasks/task.ts';
import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import { promptedProblem, promptRuleOf, type ChatTemplateMode, type PromptRule } from '../../plugins/tokenizers/prompt-text.ts';
import { stepBoundaryIds } from '../../plugins/tokenizers/step-boundary.ts';
import { wordBoundary } from '../../plugins/tokenizers/word-boundary.ts';
import type { MatchRuntime } from './runtime.ts';

export interface Sampling {
  readonly temperature: number;
  readonly topP: number;
  /** The response budget of a co-decoded turn (a sequential turn has its own, in its spec). */
  readonly maxNewTokens: number;
  /**
   * A role's own temperature for its whole turns (sequential and world), where it differs from `temperature`: the
   * verifier axes judge greedily what was sampled. Co-decoded turns, whose rows mix roles, take `temperature`.
   */
  readonly roleTemperatures?: Readonly<Record<string, number>>;
}

/** The temperature `role`'s whole turns are decoded at. */
export const turnTemperature = (sampling: Sampling, role: string): number => sampling.roleTemperatures?.[role] ?? sampling.temperature;

/** What playing a game's matches needs: a runtime to decode on, the shared tokenizer with its boundaries, the stop tokens, sampling. */
export interface Arena<Role extends string = string> {
  readonly game: Game<Role, Problem>;
  /** In-process decoders (DecoderPool) or rollout servers (engine/remote). */
  readonly runtime: MatchRuntime;
  readonly tokenizer: TextTokenizer;
  /** Word-initial token ids (word handoff) and ids whose text holds "\n\n" (step ends). */
  readonly wordBoundary: readonly number[];
  readonly stepBoundary: readonly number[];
  readonly stopTokens: readonly number[];
  readonly sampling: Sampling;
  /** Whether a problem is put to an instruct model through its tokenizer's chat template (see `promptText`). */
  readonly chatTemplate: ChatTemplateMode;
  /** The rule every prompt of this arena follows, co-decoded or sequential, as the run records it. */
  readonly promptRule: PromptRule;
  /** A prompt's text as the policies read it (a sequential turn's, which its game renders from `prompted` problems). */
  readonly encodePrompt: (text: string) => number[];
  /** The problem whose `prompt` is rendered by the rule: what a sequential turn's template receives. */
  readonly prompted: (problem: Problem) => Problem;
  /** A problem as the policies read it when it is the whole prompt (co-decoded turns, a solving turn): `prompted(problem).prompt`. */
  readonly encodeProblem: (problem: Problem) => number[];
}

export interface Prompting {
  /** `on` by default, as the tandem paper prompts its instruct models; a tokenizer without a template is unaffected. */
  readonly chatTemplate?: ChatTemplateMode;
}

/** An arena for a game: the tokenizer's word and step boundaries, the model's stop tokens, how prompts are encoded. */
export function arenaFor<Role extends string>(
  game: Game<Role, Problem>,
  runtime: MatchRuntime,
  tokenizer: TextTokenizer,
  stopTokens: readonly number[],
  sampling: Sampling,
  prompting: Prompting = {},
): Arena<Role> {
  const chatTemplate = prompting.chatTemplate ?? 'on';
  return {
    game,
    runtime,
    tokenizer,
    wordBoundary: Array.from(wordBoundary(tokenizer).ids),
    stepBoundary: stepBoundaryIds(tokenizer),
    stopTokens,
    sampling,
    chatTemplate,
    promptRule: promptRuleOf(tokenizer, chatTemplate),
    encodePrompt: (text) => tokenizer.encode(text),
    prompted: (problem) => promptedProblem(problem, tokenizer, chatTemplate),
    encodeProblem: (problem) => tokenizer.encode(promptedProblem(problem, tokenizer, chatTemplate).prompt),
  };
}
