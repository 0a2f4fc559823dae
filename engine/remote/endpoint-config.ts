import { z } from 'zod';

/**
 * A policy bound to an OpenAI-compatible endpoint instead of weights (a hosted model, a colleague's vLLM, `ludus
 * serve-model`): frozen, it plays whole turns from their text. The token is read from the environment, never from the
 * config, so it is not recorded with a run.
 */
export const EndpointSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }).describe("the API's base URL, the part before /chat/completions: https://api.openai.com/v1, http://127.0.0.1:8000/v1"),
  model: z.string().min(1).describe('the model the endpoint serves under that name (the request\'s "model")'),
  tokenEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
    .optional()
    .describe('the environment variable whose value is sent as "Authorization: Bearer <token>"; nothing is sent when absent or unset'),
  api: z.enum(['chat', 'completions']).default('chat').describe("chat: POST /chat/completions with the turn's prompt as one user message; completions: POST /completions with the prompt text as it is"),
  sampling: z
    .strictObject({
      temperature: z.number().min(0).max(2).default(1).describe('sampling temperature sent with every request (ours: 1)'),
      topP: z.number().gt(0).max(1).default(1).describe('nucleus threshold sent as top_p (1: off)'),
      maxTokens: z.number().int().positive().optional().describe("a cap on tokens asked per turn; the turn's own budget when absent (or smaller)"),
      seed: z.boolean().default(true).describe("send each turn's seed (the OpenAI API's seed: best effort; ludus serve-model and vLLM honour it)"),
    })
    .prefault({})
    .describe('sampling settings sent with every request'),
  concurrency: z.number().int().positive().default(4).describe('requests in flight at once to this endpoint (ours: 4)'),
  timeoutMs: z.number().int().positive().default(60_000).describe('per request attempt (ours)'),
  retries: z.number().int().min(0).default(4).describe('further attempts after a transport failure, a 429, a 5xx or malformed JSON; never after another 4xx (ours)'),
  backoffMs: z.number().int().min(0).default(500).describe('wait before the first retry, doubled for each next one; a Retry-After is honoured up to 30 s (ours)'),
});

export type Endpoint = z.output<typeof EndpointSchema>;
export type EndpointInput = z.input<typeof EndpointSchema>;

/** Named endpoints (an endpoints file, a tournament's): each a seat `endpoint:<name>` can name. */
export const EndpointsSchema = z.record(z.string().regex(/^[\w.-]+$/, 'a name of letters, digits, _ . -'), EndpointSchema);

/** The seat or entrant name of a named endpoint. */
export const ENDPOINT_PREFIX = 'endpoint:';
