import type { Problem } from '../../core/tasks/task.ts';
import { questionWithInstruction } from '../tasks/prompt.ts';
import { applyChatTemplate } from './chat-template.ts';
import type { TextTokenizer } from './hf-tokenizer.ts';

/** `on`: prompt through the tokenizer's chat template where it has one; `off`: always the task's plain prompt. */
export type ChatTemplateMode = 'on' | 'off';

export const CHAT_TEMPLATE_MODES: readonly ChatTemplateMode[] = ['on', 'off'];

type PromptTokenizer = Pick<TextTokenizer, 'config' | 'source'>;

/** Whether tokenizer_config.json declares a chat template. */
export function hasChatTemplate(tokenizer: PromptTokenizer): boolean {
  const declared = tokenizer.config.chat_template;
  return typeof declared === 'string' || Array.isArray(declared);
}

/**
 * The text a problem is put to a model as. An instruct model (a tokenizer with a chat template, such as Qwen3
 * Instruct's) gets the question and its instruction as one user turn, rendered by its own template with the
 * assistant turn opened, as the tandem paper prompts Qwen3-4B-Instruct; a base model, or `mode` off, gets the
 * task's plain prompt.
 */
export function promptText(problem: Pick<Problem, 'prompt' | 'question' | 'instruction'>, tokenizer: PromptTokenizer, mode: ChatTemplateMode = 'on'): string {
  if (mode === 'off' || !hasChatTemplate(tokenizer)) return problem.prompt;
  return applyChatTemplate(tokenizer, [{ role: 'user', content: questionWithInstruction(problem.question, problem.instruction) }], { addGenerationPrompt: true });
}

/**
 * A prompt that is the model's whole input without being a task's problem (a world game's observation of its seat) as
 * the rule puts it: one user turn through the tokenizer's chat template, the assistant turn opened, where the mode is on
 * and the tokenizer has one (as SPIRAL wraps each observation); else the text itself.
 */
export function userTurnText(text: string, tokenizer: PromptTokenizer, mode: ChatTemplateMode = 'on'): string {
  if (mode === 'off' || !hasChatTemplate(tokenizer)) return text;
  return applyChatTemplate(tokenizer, [{ role: 'user', content: text }], { addGenerationPrompt: true });
}

/**
 * The one rule by which a run puts prompts to its policies, recorded with the run: `chat-template` where the mode is
 * on and the tokenizer has a template, else `plain`.
 */
export type PromptRule = 'chat-template' | 'plain';

export function promptRuleOf(tokenizer: PromptTokenizer, mode: ChatTemplateMode = 'on'): PromptRule {
  return mode === 'on' && hasChatTemplate(tokenizer) ? 'chat-template' : 'plain';
}

/**
 * The problem as every turn that quotes it reads it: its `prompt` rendered by the rule (`promptText`), so a sequential
 * game's solving turn (Tango's generator, Agon's drafter) gets exactly the tokens an evaluation or a co-decoded game
 * puts to the model, and turns that quote the problem (a verifier, a challenger) quote it the same way.
 */
export function promptedProblem<P extends Pick<Problem, 'prompt' | 'question' | 'instruction'>>(problem: P, tokenizer: PromptTokenizer, mode: ChatTemplateMode = 'on'): P {
  const prompt = promptText(problem, tokenizer, mode);
  return prompt === problem.prompt ? problem : { ...problem, prompt };
}
