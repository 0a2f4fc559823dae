import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { z } from 'zod';
import { LudusError, fail, type LudusErrorCode } from '../../core/errors.ts';
import { jsonSyntaxProblem } from '../../core/json-syntax.ts';
import { modelNamed, type AccessLog } from '../access-log.ts';
import { CONNECTION_LIMITS, ConnectionGate, type ConnectionLimits } from '../connection-gate.ts';
import type { Refusal, RequestGuard } from '../request-guard.ts';

/** What a route answers: JSON (the default), plain text, an empty body, or Server-Sent Events (each a JSON `data:` line, then `data: [DONE]`). */
export type Answer = { readonly status?: number; readonly json: unknown } | { readonly status?: number; readonly text: string } | { readonly status?: number; readonly events: AsyncIterable<unknown> | Iterable<unknown> };

/** What a route may know of its request besides the body. */
export interface RouteContext {
  /** Aborted when the client goes away before its answer is sent: work done only for it should stop. */
  readonly signal: AbortSignal;
}

export type Route = (body: unknown, context: RouteContext) => Promise<Answer>;

/** Routes by "METHOD /path". */
export type Routes = ReadonlyMap<string, Route>;

/** A route's own body bound, by "METHOD /path", where it differs from the server's (computed when a request comes). */
export type BodyLimits = ReadonlyMap<string, () => number>;

/**
 * The HTTP status of every coded error a route can raise: the caller's mistakes are 4xx (never retried by ludus's
 * clients), the server's own failures 5xx. Exhaustive, so a new code must be placed.
 */
const STATUS: Record<LudusErrorCode, number> = {
  REQUEST_INVALID: 400,
  INPUT_INVALID: 400,
  CONFIG_INVALID: 400,
  SEQUENCE_TOO_LONG: 400,
  ADAPTERS_UNSUPPORTED: 400,
  ADAPTER_BASE_MISMATCH: 400,
  ADAPTER_RANK_MISMATCH: 400,
  ADAPTER_TARGET_MISMATCH: 400,
  TOKENIZER_MISMATCH: 400,
  TOKENIZER_INVALID: 400,
  MODEL_TYPE_UNSUPPORTED: 400,
  SAFETENSORS_MALFORMED: 400,
  SAFETENSORS_DTYPE_UNSUPPORTED: 400,
  CHECKPOINT_MISSING_FILE: 400,
  CHECKPOINT_TENSOR_MISSING: 400,
  CHECKPOINT_TENSOR_SHAPE: 400,
  DATA_INVALID: 400,
  POLICY_INVALID: 400,
  MASK_EMPTY: 400,
  AUTHOR_SHARE_OUT_OF_BAND: 400,
  TRAJECTORY_INVALID: 400,
  LOG_LINE_INVALID: 400,
  REWARD_INVALID: 400,
  EXPORT_UNSUPPORTED: 400,
  WORLD_INVALID: 500,
  WORLD_TOO_LARGE: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  PATH_FORBIDDEN: 403,
  FILE_NOT_FOUND: 404,
  MODEL_NOT_SERVED: 404,
  MODEL_NOT_FOUND: 404,
  NOTHING_TO_RESUME: 404,
  RUN_DIR_NOT_EMPTY: 409,
  RUN_LOCKED: 409,
  OUTPUT_EXISTS: 409,
  PLUGIN_CLASH: 409,
  REQUEST_TIMEOUT: 408,
  REQUEST_TOO_LARGE: 413,
  MEMORY_INSUFFICIENT: 413,
  CONTENT_TYPE_UNSUPPORTED: 415,
  NON_FINITE: 422,
  PLUGIN_INVALID: 500,
  REWARD_FAILED: 500,
  PLUGIN_LOAD_FAILED: 500,
  GRAPH_INVALID: 500,
  ENGINE_RUN_FAILED: 500,
  WORKER_FAILED: 500,
  INTERNAL: 500,
  REMOTE_UNAVAILABLE: 502,
  REMOTE_REJECTED: 502,
  REMOTE_RESPONSE_INVALID: 502,
  REMOTE_UNSUPPORTED: 502,
  REMOTE_MISCONFIGURED: 502,
  TRACKING_FAILED: 502,
  DEVICE_UNAVAILABLE: 503,
  TORCH_UNAVAILABLE: 503,
  SERVER_BUSY: 503,
};

/** The HTTP status a coded error answers with. */
export const statusOf = (code: LudusErrorCode): number => STATUS[code] ?? 500;

/** On every answer: no sniffing a JSON body into something else, no caching of answers that carry weights. */
const SAFE_HEADERS = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };

/** The access line's status of a request whose client went away before any answer was sent (nginx's). */
const CLIENT_GONE = 499;

export interface JsonServerOptions {
  /** Names the server in its log lines. */
  readonly what: string;
  /** Routes' own body bounds, where they differ from the guard's. */
  readonly bodyLimits?: BodyLimits;
  /** The routes ("METHOD /path") that change state: every request to one gets a line in `log`. */
  readonly changesState?: ReadonlySet<string>;
  readonly log?: AccessLog;
  /** Connection caps and timeouts; CONNECTION_LIMITS where absent. */
  readonly connections?: Partial<ConnectionLimits>;
}

/**
 * A JSON-over-HTTP server for a route table behind a {@link RequestGuard}: a request is refused by the guard before
 * its body is read (401/403/413/415), then its body is read within the body timeout (408), then it enters the
 * requests in flight (503 past them), and is parsed as JSON (malformed JSON, an unknown route or method is a coded
 * 4xx); a route's LudusError becomes its status with `{ error: { message, type, param, code } }` (OpenAI's error
 * shape, `code` the ludus code), anything else a 500 that names no internals. Connections that have not shown the
 * token are held by a {@link ConnectionGate}; a request whose client goes away has its signal aborted.
 */
export function jsonServer(routes: Routes, guard: RequestGuard, options: JsonServerOptions): Server {
  const gate = new ConnectionGate({ ...CONNECTION_LIMITS, ...options.connections });
  const checking = Math.max(50, Math.min(1000, Math.floor(gate.limits.headersTimeoutMs / 4)));
  const server = createServer({ connectionsCheckingInterval: checking }, (request, response) => {
    void handle(routes, guard, gate, options, request, response);
  });
  gate.attach(server);
  return server;
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

async function handle(routes: Routes, guard: RequestGuard, gate: ConnectionGate, options: JsonServerOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = (request.url ?? '/').split('?')[0];
  const key = `${request.method} ${path}`;
  let model: string | undefined;
  if (options.log && options.changesState?.has(key)) {
    const log = options.log;
    const address = request.socket.remoteAddress ?? '';
    response.once('close', () => log.record({ route: key, ...(model === undefined ? {} : { model }), address, status: response.headersSent ? response.statusCode : CLIENT_GONE }));
  }
  const preflight = guard.preflight(request);
  if (preflight) {
    if ('status' in preflight) return refuse(response, preflight);
    response.writeHead(204, preflight.headers).end();
    return;
  }
  const maxBody = options.bodyLimits?.get(key)?.();
  const refusal = guard.check(request, maxBody);
  if (refusal) return refuse(response, refusal);
  gate.cleared(request.socket);
  const cors = guard.corsHeaders(request);
  const departure = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) departure.abort();
  });
  try {
    const route = routes.get(key);
    if (!route) {
      const methods = [...routes.keys()].filter((key) => key.endsWith(` ${path}`)).map((key) => key.split(' ')[0]);
      if (methods.length > 0) return send(response, 405, errorBody('REQUEST_INVALID', `${request.method} ${path}: use ${methods.join(' or ')}`), cors);
      return send(response, 404, errorBody('REQUEST_INVALID', `no route ${request.method} ${path}`), cors);
    }
    const body = parseJson(await guard.readBody(request, maxBody, gate.limits.bodyTimeoutMs));
    model = modelNamed(body);
    const busy = guard.busy();
    if (busy) return refuse(response, busy, cors);
    await guard.admitted(async () => answer(response, await route(body, { signal: departure.signal }), cors, options.what));
  } catch (error) {
    const coded = LudusError.is(error);
    const status = coded ? statusOf(error.code) : 500;
    // A body that stopped arriving leaves the connection mid-request: it is closed after the answer.
    const closing = coded && error.code === 'REQUEST_TIMEOUT' ? { ...cors, connection: 'close' } : cors;
    if (coded) send(response, status, errorBody(error.code, error.message, error.details.field), closing);
    else send(response, 500, errorBody('ENGINE_RUN_FAILED', 'internal error (see the server log)'), cors);
    if (status >= 500) process.stderr.write(`${options.what}: ${(error as Error).stack ?? String(error)}\n`);
  }
}

/** Writes a route's answer: JSON, text, or Server-Sent Events (a failure after the status is the stream's last event). */
async function answer(response: ServerResponse, answer: Answer, cors: Readonly<Record<string, string>>, what: string): Promise<void> {
  if ('text' in answer) {
    response.writeHead(answer.status ?? 200, { ...SAFE_HEADERS, ...cors, 'content-type': 'text/plain; charset=utf-8' });
    response.end(answer.text);
  } else if ('events' in answer) {
    response.writeHead(answer.status ?? 200, { ...SAFE_HEADERS, ...cors, 'content-type': 'text/event-stream; charset=utf-8' });
    try {
      for await (const event of answer.events) response.write(`data: ${JSON.stringify(event)}\n\n`);
    } catch (error) {
      // The status is sent: a failure after it is the stream's last event, in the shape of an error answer.
      const coded = LudusError.is(error);
      response.write(`data: ${JSON.stringify(coded ? errorBody(error.code, error.message, error.details.field) : errorBody('ENGINE_RUN_FAILED', 'internal error (see the server log)'))}\n\n`);
      if (!coded || statusOf(error.code) >= 500) process.stderr.write(`${what}: ${(error as Error).stack ?? String(error)}\n`);
    }
    response.end('data: [DONE]\n\n');
  } else {
    send(response, answer.status ?? 200, answer.json, cors);
  }
}

function parseJson(body: Buffer): unknown {
  const text = body.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return fail('REQUEST_INVALID', `request body is not JSON (${jsonSyntaxProblem(error)})`);
  }
}

function refuse(response: ServerResponse, refusal: Refusal, headers: Readonly<Record<string, string>> = {}): void {
  send(response, refusal.status, errorBody(refusal.code, refusal.message), { ...headers, ...refusal.headers });
}

const ERROR_TYPES: Readonly<Record<number, string>> = { 401: 'AuthenticationError', 403: 'PermissionDeniedError', 404: 'NotFoundError', 409: 'ConflictError', 422: 'UnprocessableEntityError' };

function errorBody(code: LudusErrorCode, message: string, param?: unknown) {
  const status = statusOf(code);
  const type = ERROR_TYPES[status] ?? (status < 500 ? 'BadRequestError' : 'InternalServerError');
  return { error: { message, type, param: typeof param === 'string' ? param : null, code } };
}

function send(response: ServerResponse, status: number, json: unknown, headers: Readonly<Record<string, string>> = {}): void {
  const body = JSON.stringify(json);
  response.writeHead(status, { ...SAFE_HEADERS, ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}
