import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { fail } from '../../core/errors.ts';
import { TOKEN_ID_PREFIX, VllmCompletionRequestSchema } from '../../engine/remote/vllm-wire.ts';
import { ensureFits } from '../../native/model/memory.ts';
import { applyChatTemplate, declaredChatTemplate, type ChatMessage } from '../../plugins/tokenizers/chat-template.ts';
import { ensureWithin } from '../request-guard.ts';
import type { SampleJob, SampleOutcome } from './batcher.ts';
import { EventChannel } from './event-channel.ts';
import { parseRequest, type Answer, type Route } from './json-routes.ts';
import { refuseNonNeutral, seedOf, stopStringsOf, textOffsets } from './sampling-routes.ts';
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

type Job = Omit<SampleJob, 'prompt' | 'maxTokens' | 'seed' | 'onToken'> & { readonly seed?: number };

/** How a streamed answer's chunks are written: before a choice's tokens, for each token, after its last one, and the usage. */
interface Chunks {
  readonly start?: (index: number) => unknown;
  readonly token: (index: number, id: number, logprob: number, text: string, alternatives?: ReadonlyArray<readonly [number, number]>) => unknown;
  readonly end: (sampled: Sampled, index: number) => unknown;
  readonly usage?: (choices: readonly Sampled[]) => unknown;
}

/** One sampled choice and, where asked, the top alternatives at each of its positions. */
interface Sampled {
  readonly outcome: SampleOutcome;
  readonly prompt: readonly number[];
  readonly alternatives?: Array<Array<[id: number, logprob: number]>>;
}

/**
 * The OpenAI-compatible completion endpoints of `ludus serve-model`, as vLLM serves them where that is cheap: text
 * prompts tokenized with the model's tokenizer, chat completions through its chat template, `n` choices (the k-th
 * from (seed, k)), top-k alternatives for `logprobs`, and Server-Sent Events for `stream`, a chunk a token as it is
 * decoded (with top-k alternatives, once the choice is decoded and scored). Token-id prompts keep the very answers
 * ludus's own client reads.
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

  /** Checks the request's size and queues its choices (prompt by prompt, n each; the k-th from (seed, k)): throws before anything is sent. */
  const submit = (served: ServedModel, prompts: readonly (readonly number[])[], n: number, maxTokens: (prompt: readonly number[]) => number, job: Job, onToken?: (choice: number, token: number, logprob: number) => void) => {
    ensureWithin(
      `${prompts.length} prompts × ${n} choices`,
      prompts.reduce((a, p) => a + n * (p.length + maxTokens(p)), 0),
      limits.maxRequestTokens,
      '--max-request-tokens',
      'prompt',
    );
    const rows = prompts.flatMap((prompt) => Array.from({ length: n }, () => prompt));
    return rows.map((prompt, k) => ({
      prompt,
      outcome: served.batcher.submit({ ...job, prompt, maxTokens: maxTokens(prompt), ...seedOf(job.seed, k), ...(onToken ? { onToken: (token: number, logprob: number) => onToken(k, token, logprob) } : {}) }),
    }));
  };
  const settle = (served: ServedModel, submitted: ReturnType<typeof submit>, alternatives: number, temperature: number): Promise<Sampled[]> =>
    Promise.all(
      submitted.map(async ({ prompt, outcome }) => {
        const done = await outcome;
        return { outcome: done, prompt, ...(alternatives > 0 ? { alternatives: await topAlternatives(served, prompt, done.tokens, alternatives, temperature) } : {}) };
      }),
    );
  /**
   * A streamed answer: each token's chunk as it is decoded, then each choice's last chunk and the usage. Top-k
   * alternatives need the whole choice scored, so with them the chunks follow once the choices are decoded.
   */
  const stream = (served: ServedModel, prompts: readonly (readonly number[])[], n: number, maxTokens: (prompt: readonly number[]) => number, job: Job, alternatives: number, chunks: Chunks): Answer => {
    const channel = new EventChannel<unknown>();
    const count = prompts.length * n;
    const seen = Array.from({ length: count }, () => [] as number[]);
    const incremental = alternatives === 0;
    if (chunks.start) for (let k = 0; k < count; k++) channel.push(chunks.start(k));
    const submitted = submit(served, prompts, n, maxTokens, job, incremental ? (k, token, logprob) => channel.push(chunks.token(k, token, logprob, pieceAfter(seen[k], token))) : undefined);
    settle(served, submitted, alternatives, job.sampling.temperature).then(
      (choices) => {
        choices.forEach((sampled, k) => {
          if (!incremental) sampled.outcome.tokens.forEach((token, t) => channel.push(chunks.token(k, token, sampled.outcome.logprobs[t], pieceAfter(seen[k], token), sampled.alternatives?.[t])));
          channel.push(chunks.end(sampled, k));
        });
        if (chunks.usage) channel.push(chunks.usage(choices));
        channel.close();
      },
      (error: unknown) => channel.close(error),
    );
    return { events: channel };
  };
  /** The text a token adds after `before` (then appended to it), decoded over the prefix so a character split across tokens comes out whole. */
  const pieceAfter = (before: number[], token: number) => {
    const was = decode(visible(before)).length;
    before.push(token);
    return decode(visible(before)).slice(was);
  };

  return new Map<string, Route>([
    [
      'POST /v1/completions',
      async (body, { signal }) => {
        const request = parseRequest(CompletionRequestSchema, body, 'POST /v1/completions');
        if ((request.prompt_logprobs ?? 0) > 0) fail('REQUEST_INVALID', 'prompt_logprobs: only 0 is served (the prompt tokens\' own log-probabilities, no alternatives)', { field: 'prompt_logprobs' });
        if (request.stream && request.prompt_logprobs !== undefined) fail('REQUEST_INVALID', 'prompt_logprobs: not available with stream', { field: 'prompt_logprobs' });
        refuseNonNeutral(request);
        const served = models.get(request.model);
        const prompts = promptsOf(request.prompt, (text) => models.tokenizer.encode(text));
        const stopStrings = stopStringsOf(request.stop);
        const k = request.logprobs ?? 0;
        const job: Job = {
          sampling: { temperature: request.temperature, topP: request.top_p, topK: Math.max(request.top_k, 0) },
          ...(request.seed === undefined ? {} : { seed: request.seed }),
          stopTokenIds: request.stop_token_ids,
          stopStrings,
          ignoreEos: request.ignore_eos,
          promptLogprobs: request.prompt_logprobs !== undefined,
          signal,
        };
        const tokenText = (id: number) => (request.return_tokens_as_token_ids ? `${TOKEN_ID_PREFIX}${id}` : decode([id]));
        const topOf = (alternatives: ReadonlyArray<readonly [number, number]>) => Object.fromEntries(alternatives.map(([id, logprob]) => [tokenText(id), logprob]));
        const header = { id: `cmpl-${randomUUID()}`, object: 'text_completion', created: Math.floor(Date.now() / 1000), model: served.name };
        if (request.stream) {
          const chunk = (choice: Record<string, unknown>) => ({ ...header, choices: [{ logprobs: null, finish_reason: null, stop_reason: null, ...choice }] });
          return stream(served, prompts, request.n, () => request.max_tokens, job, k, {
            token: (index, id, logprob, text, alternatives) =>
              chunk({
                index,
                text,
                ...(request.logprobs === undefined ? {} : { logprobs: { tokens: [tokenText(id)], token_logprobs: [logprob], text_offset: [0], top_logprobs: alternatives ? [topOf(alternatives)] : null } }),
                ...(request.return_token_ids ? { token_ids: [id] } : {}),
              }),
            end: (sampled, index) => chunk({ index, text: '', finish_reason: sampled.outcome.finish, stop_reason: sampled.outcome.stopReason }),
            ...(request.stream_options?.include_usage ? { usage: (choices: readonly Sampled[]) => ({ ...header, choices: [], usage: usageOf(choices) }) } : {}),
          });
        }
        const choices = await settle(served, submit(served, prompts, request.n, () => request.max_tokens, job), k, request.temperature);
        const top = (sampled: Sampled) => sampled.alternatives?.map(topOf) ?? null;
        const usage = usageOf(choices);
        return {
          json: {
            ...header,
            choices: choices.map((sampled, index) => ({
              index,
              text: textOf(sampled.outcome, request.include_stop_str_in_output ?? false),
              logprobs:
                request.logprobs === undefined
                  ? null
                  : { tokens: sampled.outcome.tokens.map(tokenText), token_logprobs: sampled.outcome.logprobs, text_offset: textOffsets(sampled.outcome.tokens, decode), top_logprobs: top(sampled) },
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
      async (body, { signal }) => {
        const request = parseRequest(ChatRequestSchema, body, 'POST /v1/chat/completions');
        if (request.top_logprobs !== undefined && !request.logprobs) fail('REQUEST_INVALID', 'top_logprobs: needs logprobs: true', { field: 'top_logprobs' });
        refuseNonNeutral(request);
        const stopStrings = stopStringsOf(request.stop);
        const served = models.get(request.model);
        if (declaredChatTemplate(models.tokenizer) === undefined) {
          fail('REQUEST_INVALID', `model "${served.name}" has no chat template (the shipped bases are trained on plain text and have none): send its prompt as text to POST /v1/completions, or serve a model whose tokenizer_config.json has a chat_template`, { field: 'messages' });
        }
        const messages: ChatMessage[] = request.messages.map((message) => ({ ...message, content: typeof message.content === 'string' ? message.content : message.content.map((part) => part.text).join('') }));
        const prompt = models.tokenizer.encode(applyChatTemplate(models.tokenizer, messages, { addGenerationPrompt: true }));
        const room = served.batcher.maxLen - prompt.length;
        if (room < 1) fail('SEQUENCE_TOO_LONG', `the conversation is ${prompt.length} tokens through the chat template, leaving no room in the model's ${served.batcher.maxLen} positions`, { field: 'messages' });
        const asked = request.max_completion_tokens ?? request.max_tokens;
        const job: Job = {
          sampling: { temperature: request.temperature, topP: request.top_p, topK: Math.max(request.top_k, 0) },
          ...(request.seed === undefined ? {} : { seed: request.seed }),
          stopTokenIds: [],
          stopStrings,
          ignoreEos: false,
          promptLogprobs: false,
          signal,
        };
        const k = request.logprobs ? (request.top_logprobs ?? 0) : 0;
        const entry = (id: number, logprob: number) => {
          const token = decode([id]);
          return { token, logprob, bytes: [...Buffer.from(token, 'utf8')] };
        };
        const logprobEntry = (id: number, logprob: number, alternatives: ReadonlyArray<readonly [number, number]> = []) => ({ ...entry(id, logprob), top_logprobs: alternatives.map(([alt, value]) => entry(alt, value)) });
        const header = { id: `chatcmpl-${randomUUID()}`, created: Math.floor(Date.now() / 1000), model: served.name };
        if (request.stream) {
          const chunk = (choice: Record<string, unknown>) => ({ ...header, object: 'chat.completion.chunk', choices: [{ logprobs: null, finish_reason: null, ...choice }] });
          return stream(served, [prompt], request.n, () => asked ?? room, job, k, {
            start: (index) => chunk({ index, delta: { role: 'assistant', content: '' } }),
            token: (index, id, logprob, content, alternatives) => chunk({ index, delta: { content }, ...(request.logprobs ? { logprobs: { content: [logprobEntry(id, logprob, alternatives)] } } : {}) }),
            end: (sampled, index) => chunk({ index, delta: {}, finish_reason: sampled.outcome.finish, stop_reason: sampled.outcome.stopReason }),
            ...(request.stream_options?.include_usage ? { usage: (choices: readonly Sampled[]) => ({ ...header, object: 'chat.completion.chunk', choices: [], usage: usageOf(choices) }) } : {}),
          });
        }
        const choices = await settle(served, submit(served, [prompt], request.n, () => asked ?? room, job), k, request.temperature);
        const logprobsOf = (sampled: Sampled) => (request.logprobs ? { content: sampled.outcome.tokens.map((id, t) => logprobEntry(id, sampled.outcome.logprobs[t], sampled.alternatives?.[t])) } : null);
        const usage = usageOf(choices);
        return {
          json: {
            ...header,
            object: 'chat.completion',
            choices: choices.map((sampled, index) => ({
              index,
              message: { role: 'assistant', content: textOf(sampled.outcome, false) },
              logprobs: logprobsOf(sampled),
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
