import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { EndpointClient } from '../../../engine/remote/endpoint-client.ts';
import { EndpointSchema, type EndpointInput } from '../../../engine/remote/endpoint-config.ts';
import { openaiShapes } from '../../support/openai-shapes.ts';

const SHAPES = JSON.parse(readFileSync('test/fixtures/remote/openai-api-shapes.json', 'utf8')) as ReturnType<typeof openaiShapes>;

type Handler = (request: { path: string; body: Record<string, unknown>; headers: IncomingMessage['headers'] }, response: ServerResponse) => void;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A loopback HTTP server answering with `handler`, and what it was sent. */
async function serve(handler: Handler): Promise<{ url: string; seen: Array<{ path: string; body: Record<string, unknown>; authorization?: string }> }> {
  const seen: Array<{ path: string; body: Record<string, unknown>; authorization?: string }> = [];
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      seen.push({ path: request.url ?? '', body, ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}) });
      handler({ path: request.url ?? '', body, headers: request.headers }, response);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1`, seen };
}

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(typeof body === 'string' ? body : JSON.stringify(body));
};

/** A chat completion holding every field the API reference requires (and usage), as OpenAI's types declare them. */
const chatAnswer = (content: string, usage = { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 }) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
  usage,
});
const completionAnswer = (text: string) => ({
  id: 'cmpl-1',
  object: 'text_completion',
  created: 1_700_000_000,
  model: 'm',
  choices: [{ index: 0, text, logprobs: null, finish_reason: 'length' }],
  usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
});

const client = (url: string, fields: Partial<EndpointInput> = {}) => new EndpointClient('remote', EndpointSchema.parse({ url, model: 'm', backoffMs: 1, ...fields }));

const errorOf = async (promise: Promise<unknown>): Promise<LudusError> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof LudusError) return error;
    throw error;
  }
  throw new Error('no error was thrown');
};

/** The fields a model declares, without the "optional" ones when `required`. */
const declared = (model: { fields: Record<string, string> }, required = false) => Object.entries(model.fields).filter(([, type]) => !required || !type.startsWith('optional ')).map(([name]) => name);

describe('the OpenAI API shapes fixture', () => {
  it('should be a faithful copy of the installed openai package\'s types', () => {
    expect(SHAPES).toEqual(openaiShapes());
  });

  it('should hold the answers the tests serve: every required field of a chat completion, a completion and their choices', () => {
    const answer = chatAnswer('x');
    expect(Object.keys(answer)).toEqual(expect.arrayContaining(declared(SHAPES.responses.chat, true)));
    expect(Object.keys(answer.choices[0])).toEqual(expect.arrayContaining(declared(SHAPES.responses.chatChoice, true)));
    expect(Object.keys(answer.choices[0].message)).toEqual(expect.arrayContaining(declared(SHAPES.responses.chatMessage, true)));
    expect(Object.keys(answer.usage)).toEqual(expect.arrayContaining(declared(SHAPES.responses.usage, true)));
    const completion = completionAnswer('x');
    expect(Object.keys(completion)).toEqual(expect.arrayContaining(declared(SHAPES.responses.completions, true)));
    expect(Object.keys(completion.choices[0])).toEqual(expect.arrayContaining(declared(SHAPES.responses.completionChoice, true)));
  });
});

describe('EndpointClient', () => {
  describe('having a chat endpoint', () => {
    it('should send only fields the API declares, read the answer and count its tokens', async () => {
      const { url, seen } = await serve((_, response) => json(response, 200, chatAnswer('The answer is 5.')));
      const endpoint = client(url, { sampling: { temperature: 0.5, topP: 0.9 } });
      const answer = await endpoint.complete('What is 2 + 3?', { maxTokens: 20, stop: ['\n\n'], seed: 7 });
      expect(answer).toEqual({ text: 'The answer is 5.', finish: 'stop', promptTokens: 11, completionTokens: 3 });
      expect(seen[0].path).toBe('/v1/chat/completions');
      expect(seen[0].body).toEqual({ model: 'm', messages: [{ role: 'user', content: 'What is 2 + 3?' }], max_completion_tokens: 20, temperature: 0.5, top_p: 0.9, seed: 7, stop: ['\n\n'] });
      expect(declared(SHAPES.requests.chat)).toEqual(expect.arrayContaining(Object.keys(seen[0].body)));
      expect(declared(SHAPES.requests.userMessage)).toEqual(expect.arrayContaining(Object.keys((seen[0].body.messages as object[])[0])));
      await endpoint.complete('again', { maxTokens: 4 });
      expect(endpoint.usage).toEqual({ calls: 2, promptTokens: 22, completionTokens: 6, retries: 0 });
    });
  });

  describe('having a completions endpoint', () => {
    it('should send the prompt text as it is, with declared fields only', async () => {
      const { url, seen } = await serve((_, response) => json(response, 200, completionAnswer(' 5')));
      const answer = await client(url, { api: 'completions', sampling: { seed: false } }).complete('2 + 3 =', { maxTokens: 3, seed: 7 });
      expect(answer).toEqual({ text: ' 5', finish: 'length', promptTokens: 5, completionTokens: 7 });
      expect(seen[0].path).toBe('/v1/completions');
      expect(seen[0].body).toEqual({ model: 'm', prompt: '2 + 3 =', max_tokens: 3, temperature: 1, top_p: 1 });
      expect(declared(SHAPES.requests.completions)).toEqual(expect.arrayContaining(Object.keys(seen[0].body)));
    });
  });

  describe('having an endpoint that says which stop string it ended at', () => {
    const stopped = (reason: unknown) => ({ ...completionAnswer('First step.'), choices: [{ index: 0, text: 'First step.', logprobs: null, finish_reason: 'stop', stop_reason: reason }] });

    it("should give back the stop string it sent and the endpoint names (vLLM's and serve-model's stop_reason)", async () => {
      const { url } = await serve((_, response) => json(response, 200, stopped('\n\n')));
      expect(await client(url, { api: 'completions' }).complete('Q', { maxTokens: 9, stop: ['\n\n'] })).toEqual({ text: 'First step.', finish: 'stop', stopString: '\n\n', promptTokens: 5, completionTokens: 7 });
    });

    it('should read an ending as the model\'s where the reason is a token id, absent, or a string it did not send', async () => {
      for (const reason of [7, null, 'END']) {
        const { url } = await serve((_, response) => json(response, 200, stopped(reason)));
        expect(await client(url, { api: 'completions' }).complete('Q', { maxTokens: 9, stop: ['\n\n'] })).not.toHaveProperty('stopString');
        server?.closeAllConnections();
        await new Promise((resolve) => server!.close(resolve));
        server = undefined;
      }
    });
  });

  describe('having an endpoint that fails', () => {
    it('should retry a 500 three times with backoff and take the fourth answer', async () => {
      let calls = 0;
      const { url, seen } = await serve((_, response) => (++calls <= 3 ? json(response, 500, { error: { message: 'overloaded', type: 'server_error', param: null, code: null } }) : json(response, 200, chatAnswer('ok'))));
      const endpoint = client(url);
      await expect(endpoint.complete('p', { maxTokens: 2 })).resolves.toMatchObject({ text: 'ok' });
      expect(seen).toHaveLength(4);
      expect(endpoint.usage.retries).toBe(3);
    });

    it('should retry a 429, waiting as long as its Retry-After says', async () => {
      let calls = 0;
      const { url } = await serve((_, response) => (++calls === 1 ? json(response, 429, { error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' } }, { 'retry-after': '0.2' }) : json(response, 200, chatAnswer('ok'))));
      const started = performance.now();
      await expect(client(url).complete('p', { maxTokens: 2 })).resolves.toMatchObject({ text: 'ok' });
      expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    });

    it('should give up with REMOTE_UNAVAILABLE after its retries, naming the last failure', async () => {
      const { url, seen } = await serve((_, response) => json(response, 503, 'busy'));
      const error = await errorOf(client(url, { retries: 2 }).complete('p', { maxTokens: 2 }));
      expect(error.code).toBe('REMOTE_UNAVAILABLE');
      expect(error.message).toContain('failed 3 times, last: HTTP 503');
      expect(seen).toHaveLength(3);
    });

    it('should time out an attempt that never answers', async () => {
      const { url } = await serve(() => {});
      const error = await errorOf(client(url, { retries: 1, timeoutMs: 100 }).complete('p', { maxTokens: 2 }));
      expect(error.code).toBe('REMOTE_UNAVAILABLE');
      expect(error.message).toContain('no whole answer within 100 ms');
    });

    it('should refuse malformed JSON with a coded error, after its retries', async () => {
      const { url, seen } = await serve((_, response) => json(response, 200, '{"choices": [{"message": '));
      const error = await errorOf(client(url, { retries: 1 }).complete('p', { maxTokens: 2 }));
      expect(error.code).toBe('REMOTE_UNAVAILABLE');
      expect(error.message).toContain('malformed JSON');
      expect(seen).toHaveLength(2);
    });

    it('should refuse JSON of another shape as REMOTE_RESPONSE_INVALID, naming the missing field', async () => {
      const { url } = await serve((_, response) => json(response, 200, { choices: [{ text: 'a completion, not a chat answer', finish_reason: 'stop' }] }));
      const error = await errorOf(client(url).complete('p', { maxTokens: 2 }));
      expect(error.code).toBe('REMOTE_RESPONSE_INVALID');
      expect(error.message).toContain('endpoint "remote" answered a chat completion without choices.0.message');
    });

    it.each([
      [401, 'invalid_api_key', 'check the token in $REMOTE_TOKEN'],
      [404, 'model_not_found', 'check the url and the model name'],
      [400, 'invalid_value', 'check the fields and their values'],
    ])('should refuse a %i at once, naming what was sent and never the token', async (status, code, hint) => {
      process.env.REMOTE_TOKEN = 'sk-secret-value';
      try {
        const { url, seen } = await serve((_, response) => json(response, status, { error: { message: `no: ${code}`, type: 'invalid_request_error', param: null, code } }));
        const error = await errorOf(client(url, { tokenEnv: 'REMOTE_TOKEN' }).complete('What is 2 + 3?', { maxTokens: 2 }));
        expect(seen).toHaveLength(1);
        expect(seen[0].authorization).toBe('Bearer sk-secret-value');
        expect(error.code).toBe('REMOTE_REJECTED');
        expect(error.message).toContain(hint);
        expect(error.message).toContain(`sent POST ${url}/chat/completions with model "m", fields model, messages, max_completion_tokens, temperature, top_p, a prompt of 14 characters and a bearer token from $REMOTE_TOKEN`);
        expect(error.message).toContain(`HTTP ${status}`);
        expect(error.message).toContain(`no: ${code}`);
        expect(error.message).not.toContain('sk-secret-value');
        expect(error.details).toMatchObject({ endpoint: 'remote', status });
      } finally {
        delete process.env.REMOTE_TOKEN;
      }
    });
  });

  describe('having a concurrency limit', () => {
    it('should keep at most that many requests in flight', async () => {
      let inFlight = 0;
      let most = 0;
      const { url } = await serve((_, response) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        setTimeout(() => {
          inFlight -= 1;
          json(response, 200, chatAnswer('ok'));
        }, 20);
      });
      const endpoint = client(url, { concurrency: 2 });
      await Promise.all(Array.from({ length: 8 }, () => endpoint.complete('p', { maxTokens: 2 })));
      expect(most).toBe(2);
      expect(endpoint.usage.calls).toBe(8);
    });
  });
});
