import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { z } from 'zod';
import { LudusError, fail, type LudusErrorCode } from '../../core/errors.ts';

/** What a route answers: JSON (the default), plain text, or an empty body. */
export type Answer = { readonly status?: number; readonly json: unknown } | { readonly status?: number; readonly text: string };

export type Route = (body: unknown) => Promise<Answer>;

/** Routes by "METHOD /path". */
export type Routes = ReadonlyMap<string, Route>;

const MAX_BODY_BYTES = 256 * 2 ** 20;

const STATUS: Partial<Record<LudusErrorCode, number>> = {
  REQUEST_INVALID: 400,
  INPUT_INVALID: 400,
  SEQUENCE_TOO_LONG: 400,
  ADAPTERS_UNSUPPORTED: 400,
  ADAPTER_BASE_MISMATCH: 400,
  ADAPTER_RANK_MISMATCH: 400,
  ADAPTER_TARGET_MISMATCH: 400,
  CONFIG_INVALID: 400,
  TOKENIZER_MISMATCH: 400,
  FILE_NOT_FOUND: 404,
  MODEL_NOT_SERVED: 404,
};

/**
 * A JSON-over-HTTP server for a route table: bodies are parsed as JSON (malformed JSON, an unknown route or method is a
 * coded 4xx), a route's LudusError becomes its status with `{ error: { message, type, param, code } }` (OpenAI's error
 * shape, `code` the ludus code), anything else a 500 that names no internals.
 */
export function jsonServer(routes: Routes): Server {
  return createServer((request, response) => {
    void handle(routes, request, response);
  });
}

/** Listens on host:port (0 picks a free port); resolves with the server's base URL. A port in use is INPUT_INVALID. */
export async function listen(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new LudusError('INPUT_INVALID', `port ${port} on ${host} is in use; pass --port N (0 picks a free one)`, { port }) : error),
    );
    server.listen(port, host, resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  return `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
}

/** Stops listening and drops open connections. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Parses a request body against a route's schema: REQUEST_INVALID naming the first field that is wrong. */
export function parseRequest<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const result = schema.safeParse(body ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue.path.join('.');
    fail('REQUEST_INVALID', `${what}: ${field || '(body)'}: ${issue.message}`, { field });
  }
  return result.data as z.output<S>;
}

async function handle(routes: Routes, request: IncomingMessage, response: ServerResponse): Promise<void> {
  try {
    const path = (request.url ?? '/').split('?')[0];
    const route = routes.get(`${request.method} ${path}`);
    if (!route) {
      const methods = [...routes.keys()].filter((key) => key.endsWith(` ${path}`)).map((key) => key.split(' ')[0]);
      if (methods.length > 0) return send(response, 405, errorBody('REQUEST_INVALID', `${request.method} ${path}: use ${methods.join(' or ')}`));
      return send(response, 404, errorBody('REQUEST_INVALID', `no route ${request.method} ${path}`));
    }
    const answer = await route(await readJson(request));
    if ('text' in answer) {
      response.writeHead(answer.status ?? 200, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(answer.text);
    } else {
      send(response, answer.status ?? 200, answer.json);
    }
  } catch (error) {
    if (LudusError.is(error)) send(response, STATUS[error.code] ?? 500, errorBody(error.code, error.message, error.details.field));
    else send(response, 500, errorBody('ENGINE_RUN_FAILED', 'internal error (see the server log)'));
    if (!LudusError.is(error) || (STATUS[error.code] ?? 500) >= 500) process.stderr.write(`serve-model: ${(error as Error).stack ?? String(error)}\n`);
  }
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) fail('REQUEST_INVALID', `request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return fail('REQUEST_INVALID', `request body is not JSON: ${(error as Error).message}`);
  }
}

function errorBody(code: string, message: string, param?: unknown) {
  const status = STATUS[code as LudusErrorCode] ?? 500;
  const type = status === 404 ? 'NotFoundError' : status < 500 ? 'BadRequestError' : 'InternalServerError';
  return { error: { message, type, param: typeof param === 'string' ? param : null, code } };
}

function send(response: ServerResponse, status: number, json: unknown): void {
  const body = JSON.stringify(json);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}
