import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { fail } from '../../core/errors.ts';
import { TOKEN_ID_PREFIX, VllmCompletionRequestSchema } from '../../engine/remote/vllm-wire.ts';
import { ensureFits } from '../../native/model/memory.ts';
import { applyChatTemplate, type ChatMessage } from '../../plugins/tokenizers/chat-template.ts';
import { ensureWithin } from '../request-guard.ts';
import type { SampleJob, SampleOutcome } from './batcher.ts';
import { parseRequest, type Answer, type Route } from './json-routes.ts';
import { refuseNonNeutral, seedOf, textOffsets } from './sampling-routes.ts';
import type { ServedModel, ServedModels } from './served-models.ts';

/** Choices per prompt (`n`) at most (ours). */
export const MAX_CHOICES = 16;
/** Alternatives per position (`logprobs`, `top_logprobs`) at most: vLLM's default --max-logprobs. */
export const MAX_LOGPROBS = 20;

const TokenId = z.number().int().min(0);
const StreamOptions = z.strictObject({ include_usage: z.boolean().optional(), continuous_usage_stats: z.boolean().optional() });
const Choices = z.number().int().min(1).max(MAX_CHOICES).default(1);

/**
 * `POST /v1/completions` as ludus serves it: vLLM's token-id subset (engine/remote/vllm-wire.ts, what ludus's own
 * client sends) and what an OpenAI client sends besides: text prompts, `n`, `stream`, `logprobs` ≥ 1, `echo: false`.
 * Anything else is refused by name (a strict schema).
 */
const CompletionRequestSchema = VllmCompletionRequestSchema.extend({
  prompt: z.union([z.string(), z.array(z.string()).min(1), z.array(TokenId).min(1), z.array(z.array(TokenId).min(1)).min(1)]),
  n: Choices,
  stream: z.boolean().default(false),
  stream_options: StreamOptions.optional(),
  logprobs: z.number().int().min(0).max(MAX_LOGPROBS).optional(),
  echo: z.literal(false, { error: 'echo: only false is served by ludus serve-model' }).optional(),
});

const ChatContent = z.union([z.string(), z.array(z.strictObject({ type: z.literal('text'), text: z.string() })).min(1)]);

/** `POST /v1/chat/completions`: messages through the model's chat template, then sampled as a completion. */
const ChatRequestSchema = z.strictObject({
  ...VllmCompletionRequestSchema.pick({ model: true, temperature: true, top_p: true, top_k: true, min_p: true, repetition_penalty: true, presence_penalty: true, frequency_penalty: true, seed: true, stop: true, user: true }).shape,
  messages: z.array(z.looseObject({ role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']), content: ChatContent })).min(1),
  max_tokens: z.number().int().min(1).optional(),
  max_completion_tokens: z.number().int().min(1).optional(),
  n: Choices,
  stream: z.boolean().default(false),
  stream_options: StreamOptions.optional(),
  logprobs: z.boolean().default(false),
  top_logprobs: z.number().int().min(0).max(MAX_LOGPROBS).optional(),
});

/** One sampled choice and, where asked, the top alternatives at each of its positions. */
interface Sampled {
  readonly outcome: SampleOutcome;
  readonly prompt: readonly number[];
  readonly alternatives?: Array<Array<[id: number, logprob: number]>>;
}

/**
 * The OpenAI-compatible completion endpoints of `ludus serve-model`, as vLLM serves them where that is cheap: text
 * prompts tokenized with the model's tokenizer, chat completions through its chat template, `n` choices (the k-th
 * from (seed, k)), top-k alternatives for `logprobs`, and Server-Sent Events for `stream` (sent once the choices are
 * decoded, a chunk a token: the batcher decodes rows whole). Token-id prompts keep the very answers ludus's own
 * client reads.
 */
export function completionRoutes(models: ServedModels, limits: { readonly maxRequestTokens: number }): Map<string, Route> {
  const decode = (ids: readonly number[]) => models.tokenizer.decode([...ids]);
  const eos = new Set(models.base.batcher.policy.config.eosTokenIds);
  const visible = (tokens: readonly number[]) => tokens.filter((id) => !eos.has(id));
  const textOf = (outcome: SampleOutcome, keepStopString: boolean) => {
    const text = decode(visible(outcome.tokens));
    if (typeof outcome.stopReason !== 'string' || keepStopString) return text;
    const at = text.indexOf(outcome.stopReason);
    return at < 0 ? text : text.slice(0, at);
  };
  /** The text each token adds, decoded over its prefix so a character split across tokens comes out whole. */
  const pieces = (tokens: readonly number[]) => tokens.map((_, t) => decode(visible(tokens.slice(0, t + 1))).slice(decode(visible(tokens.slice(0, t))).length));

  const sample = async (served: ServedModel, prompts: readonly (readonly number[])[], n: number, maxTokens: (prompt: readonly number[]) => number, job: Omit<SampleJob, 'prompt' | 'maxTokens' | 'seed'> & { seed?: number }, alternatives: number): Promise<Sampled[]> => {
    ensureWithin(
      `${prompts.length} prompts × ${n} choices`,
      prompts.reduce((a, p) => a + n * (p.length + maxTokens(p)), 0),
      limits.maxRequestTokens,
      '--max-request-tokens',
      'prompt',
    );
    const rows = prompts.flatMap((prompt) => Array.from({ length: n }, () => prompt));
    const outcomes = await Promise.all(rows.map((prompt, k) => served.batcher.submit({ ...job, prompt, maxTokens: maxTokens(prompt), ...seedOf(job.seed, k) })));
    return Promise.all(
      outcomes.map(async (outcome, k) => ({
        outcome,
        prompt: rows[k],
        ...(alternatives > 0 ? { alternatives: await topAlternatives(served, rows[k], outcome.tokens, alternatives, job.sampling.temperature) } : {}),
      })),
    );
  };

  return new Map<string, Route>([
    [
      'POST /v1/completions',
      async (body) => {
        const request = parseRequest(CompletionRequestSchema, body, 'POST /v1/completions');
        if ((request.prompt_logprobs ?? 0) > 0) fail('REQUEST_INVALID', 'prompt_logprobs: only 0 is served (the prompt tokens\' own log-probabilities, no alternatives)', { field: 'prompt_logprobs' });
        if (request.stream && request.prompt_logprobs !== undefined) fail('REQUEST_INVALID', 'prompt_logprobs: not available with stream', { field: 'prompt_logprobs' });
        refuseNonNeutral(request);
        const served = models.get(request.model);
        const prompts = promptsOf(request.prompt, (text) => models.tokenizer.encode(text));
        const stopStrings = request.stop === undefined ? [] : typeof request.stop === 'string' ? [request.stop] : request.stop;
        const k = request.logprobs ?? 0;
        const choices = await sample(
          served,
          prompts,
          request.n,
          () => request.max_tokens,
          {
            sampling: { temperature: request.temperature, topP: request.top_p, topK: Math.max(request.top_k, 0) },
            ...(request.seed === undefined ? {} : { seed: request.seed }),
            stopTokenIds: request.stop_token_ids,
            stopStrings,
            ignoreEos: request.ignore_eos,
            promptLogprobs: request.prompt_logprobs !== undefined,
          },
          k,
        );
        const tokenText = (id: number) => (request.return_tokens_as_token_ids ? `${TOKEN_ID_PREFIX}${id}` : decode([id]));
        const top = (sampled: Sampled, from: number, to: number) => sampled.alternatives?.slice(from, to).map((alternatives) => Object.fromEntries(alternatives.map(([id, logprob]) => [tokenText(id), logprob]))) ?? null;
        const header = { id: `cmpl-${randomUUID()}`, object: 'text_completion', created: Math.floor(Date.now() / 1000), model: served.name };
        const usage = usageOf(choices);
        if (request.stream) {
          const events = choices.flatMap((sampled, index) => {
            const texts = pieces(sampled.outcome.tokens);
            const last = sampled.outcome.tokens.length - 1;
            return sampled.outcome.tokens.map((id, t) => ({
              ...header,
              choices: [
                {
                  index,
                  text: texts[t],
                  logprobs: request.logprobs === undefined ? null : { tokens: [tokenText(id)], token_logprobs: [sampled.outcome.logprobs[t]], text_offset: [0], top_logprobs: top(sampled, t, t + 1) },
                  finish_reason: t === last ? sampled.outcome.finish : null,
                  stop_reason: t === last ? sampled.outcome.stopReason : null,
                  ...(request.return_token_ids ? { token_ids: [id] } : {}),
                },
              ],
            }));
          });
          return streamed(events, request.stream_options?.include_usage ? { ...header, choices: [], usage } : undefined);
        }
        return {
          json: {
            ...header,
            choices: choices.map((sampled, index) => ({
              index,
              text: textOf(sampled.outcome, request.include_stop_str_in_output ?? false),
              logprobs:
                request.logprobs === undefined
                  ? null
                  : { tokens: sampled.outcome.tokens.map(tokenText), token_logprobs: sampled.outcome.logprobs, text_offset: textOffsets(sampled.outcome.tokens, decode), top_logprobs: top(sampled, 0, sampled.outcome.tokens.length) },
              finish_reason: sampled.outcome.finish,
              stop_reason: sampled.outcome.stopReason,
              ...(request.return_token_ids ? { token_ids: sampled.outcome.tokens, prompt_token_ids: sampled.prompt } : {}),
              // rank is not computed (null).
              prompt_logprobs: sampled.outcome.promptLogprobs?.map((logprob, t) => (logprob === null ? null : { [String(sampled.prompt[t])]: { logprob, rank: null, decoded_token: decode([sampled.prompt[t]]) } })) ?? null,
            })),
            usage,
          },
        };
      },
    ],
    [
      'POST /v1/chat/completions',
      async (body) => {
        const request = parseRequest(ChatRequestSchema, body, 'POST /v1/chat/completions');
        if (request.top_logprobs !== undefined && !request.logprobs) fail('REQUEST_INVALID', 'top_logprobs: needs logprobs: true', { field: 'top_logprobs' });
        refuseNonNeutral(request);
        const served = models.get(request.model);
        const messages: ChatMessage[] = request.messages.map((message) => ({ ...message, content: typeof message.content === 'string' ? message.content : message.content.map((part) => part.text).join('') }));
        const prompt = models.tokenizer.encode(applyChatTemplate(models.tokenizer, messages, { addGenerationPrompt: true }));
        const room = served.batcher.maxLen - prompt.length;
        if (room < 1) fail('SEQUENCE_TOO_LONG', `the conversation is ${prompt.length} tokens through the chat template, leaving no room in the model's ${served.batcher.maxLen} positions`, { field: 'messages' });
        const asked = request.max_completion_tokens ?? request.max_tokens;
        const choices = await sample(
          served,
          [prompt],
          request.n,
          () => asked ?? room,
          {
            sampling: { temperature: request.temperature, topP: request.top_p, topK: Math.max(request.top_k, 0) },
            ...(request.seed === undefined ? {} : { seed: request.seed }),
            stopTokenIds: [],
            stopStrings: request.stop === undefined ? [] : typeof request.stop === 'string' ? [request.stop] : request.stop,
            ignoreEos: false,
            promptLogprobs: false,
          },
          request.logprobs ? (request.top_logprobs ?? 0) : 0,
        );
        const entry = (id: number, logprob: number) => {
          const token = decode([id]);
          return { token, logprob, bytes: [...Buffer.from(token, 'utf8')] };
        };
        const logprobsOf = (sampled: Sampled, from: number, to: number) =>
          request.logprobs
            ? { content: sampled.outcome.tokens.slice(from, to).map((id, t) => ({ ...entry(id, sampled.outcome.logprobs[from + t]), top_logprobs: (sampled.alternatives?.[from + t] ?? []).map(([alt, logprob]) => entry(alt, logprob)) })) }
            : null;
        const header = { id: `chatcmpl-${randomUUID()}`, created: Math.floor(Date.now() / 1000), model: served.name };
        const usage = usageOf(choices);
        if (request.stream) {
          const chunk = (choice: Record<string, unknown>) => ({ ...header, object: 'chat.completion.chunk', choices: [choice] });
          const events = choices.flatMap((sampled, index) => {
            const texts = pieces(sampled.outcome.tokens);
            return [
              chunk({ index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }),
              ...sampled.outcome.tokens.map((_, t) => chunk({ index, delta: { content: texts[t] }, logprobs: logprobsOf(sampled, t, t + 1), finish_reason: null })),
              chunk({ index, delta: {}, logprobs: null, finish_reason: sampled.outcome.finish, stop_reason: sampled.outcome.stopReason }),
            ];
          });
          return streamed(events, request.stream_options?.include_usage ? { ...header, object: 'chat.completion.chunk', choices: [], usage } : undefined);
        }
        return {
          json: {
            ...header,
            object: 'chat.completion',
            choices: choices.map((sampled, index) => ({
              index,
              message: { role: 'assistant', content: textOf(sampled.outcome, false) },
              logprobs: logprobsOf(sampled, 0, sampled.outcome.tokens.length),
              finish_reason: sampled.outcome.finish,
              stop_reason: sampled.outcome.stopReason,
            })),
            usage,
          },
        };
      },
    ],
  ]);
}

/** Text prompts go through the model's tokenizer; token ids are taken as they are. */
function promptsOf(prompt: string | readonly string[] | readonly number[] | readonly (readonly number[])[], encode: (text: string) => number[]): number[][] {
  if (typeof prompt === 'string') return [encode(prompt)];
  if (typeof prompt[0] === 'string') return (prompt as readonly string[]).map((text) => encode(text));
  if (Array.isArray(prompt[0])) return (prompt as readonly (readonly number[])[]).map((ids) => [...ids]);
  return [[...(prompt as readonly number[])]];
}

/** The k most likely tokens at each generated position, at the request's temperature (as the sampled log-probabilities are). */
async function topAlternatives(served: ServedModel, prompt: readonly number[], tokens: readonly number[], k: number, temperature: number): Promise<Array<Array<[number, number]>>> {
  if (tokens.length === 0) return [];
  const V = served.batcher.policy.config.vocabSize;
  const length = prompt.length + tokens.length;
  // The distributions are read whole from the scorer: [positions × vocabulary] float32, held until this answer is built.
  ensureFits(`logprobs alternatives over ${length} positions × ${V} tokens`, 2 * length * V * Float32Array.BYTES_PER_ELEMENT, { field: 'logprobs' });
  const full = await served.batcher.distributions([...prompt, ...tokens]);
  const T = temperature > 0 ? temperature : 1;
  return tokens.map((_, t) => {
    const row = full.subarray((prompt.length + t - 1) * V, (prompt.length + t) * V);
    let max = -Infinity;
    for (const value of row) max = Math.max(max, value / T);
    let sum = 0;
    for (const value of row) sum += Math.exp(value / T - max);
    const norm = max + Math.log(sum);
    return topIds(row, k).map((id) => [id, row[id] / T - norm] as [number, number]);
  });
}

/** The ids of the k largest values, largest first, in one pass (k is at most MAX_LOGPROBS). */
function topIds(row: Float32Array, k: number): number[] {
  const best: number[] = [];
  for (let id = 0; id < row.length; id++) {
    if (best.length === k && row[id] <= row[best[k - 1]]) continue;
    let at = best.length;
    while (at > 0 && row[best[at - 1]] < row[id]) at--;
    best.splice(at, 0, id);
    if (best.length > k) best.pop();
  }
  return best;
}

function usageOf(choices: readonly Sampled[]) {
  const prompts = new Set<readonly number[]>(choices.map((c) => c.prompt));
  const promptTokens = [...prompts].reduce((a, p) => a + p.length, 0);
  const completionTokens = choices.reduce((a, c) => a + c.outcome.tokens.length, 0);
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

/** Server-Sent Events, as vLLM ends them: `data: [DONE]` after the last chunk (and the usage chunk, when asked). */
function streamed(events: readonly unknown[], usage: unknown): Answer {
  return { events: [...events, ...(usage === undefined ? [] : [usage])] };
}
