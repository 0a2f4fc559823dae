import { Template } from '@huggingface/jinja';
import { LudusError, fail } from '../../core/errors.ts';
import type { TextTokenizer } from './hf-tokenizer.ts';

export interface ChatMessage {
  role: string;
  content: string;
  /** Fields some templates read, such as `reasoning_content` or `tool_calls`. */
  [field: string]: unknown;
}

export interface ChatTemplateOptions {
  /** End with the opening of an assistant turn, for the model to write. */
  addGenerationPrompt?: boolean;
  /** Further variables the template reads, such as Qwen3's `enable_thinking`. */
  variables?: Record<string, unknown>;
}

type ChatSource = Pick<TextTokenizer, 'config' | 'source'>;

/** The model's chat template, if its tokenizer_config.json has one: `chat_template` is one template, or a list of named ones of which `default` is used. */
export function declaredChatTemplate(tokenizer: Pick<TextTokenizer, 'config'>): string | undefined {
  const declared = tokenizer.config.chat_template;
  if (typeof declared === 'string') return declared;
  if (Array.isArray(declared)) {
    const named = declared.find((entry: { name?: unknown }) => entry?.name === 'default') as { template?: unknown } | undefined;
    if (typeof named?.template === 'string') return named.template;
  }
  return undefined;
}

function templateText(tokenizer: ChatSource): string {
  return declaredChatTemplate(tokenizer) ?? fail('TOKENIZER_INVALID', `${tokenizer.source}: the model has no chat_template in tokenizer_config.json`, { file: tokenizer.source });
}

/** The special tokens a template may print (`bos_token`, `eos_token`, ...), as strings. */
function specialTokens(config: Readonly<Record<string, unknown>>): Record<string, string> {
  const tokens: Record<string, string> = {};
  for (const [key, value] of Object.entries(config)) {
    if (!key.endsWith('_token')) continue;
    const content = typeof value === 'string' ? value : (value as { content?: unknown } | null)?.content;
    if (typeof content === 'string') tokens[key] = content;
  }
  return tokens;
}

const compiled = new WeakMap<ChatSource, Template>();

function template(tokenizer: ChatSource): Template {
  let cached = compiled.get(tokenizer);
  if (!cached) {
    try {
      cached = new Template(templateText(tokenizer));
    } catch (error) {
      if (LudusError.is(error)) throw error;
      throw new LudusError('TOKENIZER_INVALID', `${tokenizer.source}: chat_template does not parse (${(error as Error).message})`, { file: tokenizer.source });
    }
    compiled.set(tokenizer, cached);
  }
  return cached;
}

/** Renders a conversation with the model's own chat template (tokenizer_config.json `chat_template`). */
export function applyChatTemplate(tokenizer: ChatSource, messages: readonly ChatMessage[], options: ChatTemplateOptions = {}): string {
  const context = {
    ...specialTokens(tokenizer.config),
    ...options.variables,
    messages,
    add_generation_prompt: options.addGenerationPrompt ?? false,
  };
  try {
    return template(tokenizer).render(context);
  } catch (error) {
    throw new LudusError('INPUT_INVALID', `${tokenizer.source}: chat_template refused the conversation (${(error as Error).message})`, { file: tokenizer.source });
  }
}
