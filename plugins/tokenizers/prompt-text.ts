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
