import { z } from 'zod';
import { fail, LudusError } from '../../core/errors.ts';
import type { Endpoint } from './endpoint-config.ts';
import { ServerPool } from './server-pool.ts';

/** What an endpoint answered for one turn. */
export interface EndpointAnswer {
  readonly text: string;
  /** 'stop': the model ended (or a stop string did); 'length': the token budget; the API's other reasons as they came. */
  readonly finish: string;
  /**
   * The stop string the answer ended at, which the API leaves out of `text`, where the endpoint says so (vLLM's and
   * `ludus serve-model`'s `stop_reason`; OpenAI's own API does not, and such an ending reads as the model's).
   */
  readonly stopString?: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/** What an endpoint was asked so far: requests answered, their token counts (the endpoint's own), retries. */
export interface EndpointUsage {
  readonly calls: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly retries: number;
}

/** The OpenAI API allows at most this many stop sequences. */
export const MAX_STOPS = 4;

const Usage = z.looseObject({ prompt_tokens: z.number().int().min(0), completion_tokens: z.number().int().min(0) });
const ChatAnswer = z.looseObject({
  choices: z.array(z.looseObject({ message: z.looseObject({ content: z.string().nullable() }), finish_reason: z.string().nullable() })).min(1),
  usage: Usage.nullish(),
});
const CompletionAnswer = z.looseObject({
  choices: z.array(z.looseObject({ text: z.string(), finish_reason: z.string().nullable() })).min(1),
  usage: Usage.nullish(),
});

/**
 * One OpenAI-compatible endpoint (chat or completions) for a frozen policy: a request per turn, at most `concurrency`
 * in flight, each attempt bounded by `timeoutMs`, retried with backoff on transport failures, 429 and 5xx (through
 * ServerPool); a refusal (401, 403, 404, 400, …) is REMOTE_REJECTED naming what was sent, never the token.
 */
export class EndpointClient {
  private readonly pool: ServerPool;
  private readonly counts = { calls: 0, promptTokens: 0, completionTokens: 0 };

  constructor(
    readonly name: string,
    readonly endpoint: Endpoint,
    private readonly token = endpoint.tokenEnv === undefined ? undefined : process.env[endpoint.tokenEnv] || undefined,
  ) {
    this.pool = new ServerPool([endpoint.url], {
      maxConcurrency: endpoint.concurrency,
      timeoutMs: endpoint.timeoutMs,
      retries: endpoint.retries,
      backoffMs: endpoint.backoffMs,
      what: `endpoint "${name}"`,
      ...(this.token === undefined ? {} : { token: this.token }),
    });
  }

  get usage(): EndpointUsage {
    return { ...this.counts, retries: this.pool.retried };
  }

  /** The endpoint's continuation of `prompt`: a user message (chat) or the prompt text itself (completions). */
  async complete(prompt: string, options: { readonly maxTokens: number; readonly stop?: readonly string[]; readonly seed?: number }): Promise<EndpointAnswer> {
    const { endpoint } = this;
    const stop = options.stop ?? [];
    if (stop.length > MAX_STOPS) fail('REMOTE_UNSUPPORTED', `endpoint "${this.name}": a turn with ${stop.length} stop strings; the OpenAI API takes at most ${MAX_STOPS}`, { endpoint: this.name, stops: stop.length });
    const maxTokens = Math.min(options.maxTokens, endpoint.sampling.maxTokens ?? Infinity);
    const sampling = {
      temperature: endpoint.sampling.temperature,
      top_p: endpoint.sampling.topP,
      ...(endpoint.sampling.seed && options.seed !== undefined ? { seed: options.seed } : {}),
      ...(stop.length > 0 ? { stop: [...stop] } : {}),
    };
    const chat = endpoint.api === 'chat';
    const path = chat ? '/chat/completions' : '/completions';
    const body = chat
      ? { model: endpoint.model, messages: [{ role: 'user', content: prompt }], max_completion_tokens: maxTokens, ...sampling }
      : { model: endpoint.model, prompt, max_tokens: maxTokens, ...sampling };
    let json: unknown;
    try {
      json = await this.pool.postTo(0, path, body, (answer) => answer);
    } catch (error) {
      if (!LudusError.is(error, 'REMOTE_REJECTED')) throw error;
      const status = error.details.status as number | undefined;
      const hint = status === 401 || status === 403 ? `check the token${endpoint.tokenEnv ? ` in $${endpoint.tokenEnv}` : ' (no tokenEnv is set, so none was sent)'}` : status === 404 ? 'check the url and the model name' : 'check the fields and their values';
      const sent = `sent POST ${endpoint.url.replace(/\/+$/, '')}${path} with model "${endpoint.model}", fields ${Object.keys(body).join(', ')}, a prompt of ${prompt.length} characters and ${this.token === undefined ? 'no bearer token' : `a bearer token from $${endpoint.tokenEnv}`}`;
      return fail('REMOTE_REJECTED', `endpoint "${this.name}" refused a turn (${hint}): ${sent}. It answered: ${error.message.replace(/^\[REMOTE_REJECTED\] /, '')}`, { endpoint: this.name, status, fields: Object.keys(body) });
    }
    const answer = this.parse(json, chat, stop);
    this.counts.calls += 1;
    this.counts.promptTokens += answer.promptTokens;
    this.counts.completionTokens += answer.completionTokens;
    return answer;
  }

  private parse(json: unknown, chat: boolean, stops: readonly string[]): EndpointAnswer {
    const parsed = (chat ? ChatAnswer : CompletionAnswer).safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return fail('REMOTE_RESPONSE_INVALID', `endpoint "${this.name}" answered a ${chat ? 'chat completion' : 'completion'} without ${issue.path.join('.') || 'an object'} as the OpenAI API gives it (${issue.message})`, { endpoint: this.name });
    }
    const [choice] = parsed.data.choices;
    const text = chat ? ((choice as { message: { content: string | null } }).message.content ?? '') : (choice as { text: string }).text;
    const reason = (choice as { stop_reason?: unknown }).stop_reason;
    const stopString = typeof reason === 'string' && stops.includes(reason) ? { stopString: reason } : {};
    return { text, finish: choice.finish_reason ?? 'stop', ...stopString, promptTokens: parsed.data.usage?.prompt_tokens ?? 0, completionTokens: parsed.data.usage?.completion_tokens ?? 0 };
  }
}
