import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { LudusError, fail, type LudusErrorCode } from '../core/errors.ts';
import { tokensMatch } from './control-token.ts';
import { OriginAllowlist } from './origin-allowlist.ts';

export interface RequestGuardOptions {
  /** Every request must carry it as `Authorization: Bearer <token>`. */
  readonly token: string;
  /** Host names, besides `localhost` and IP literals, that the `Host` header may name (an exposed server's DNS name). */
  readonly allowHosts?: readonly string[];
  /** Browser origins allowed to call; a request from any other `Origin` is refused. */
  readonly allowOrigins?: readonly string[];
  /** Bodies past this are refused (413) before they are read whole. */
  readonly maxBodyBytes: number;
  /** Requests handled at once, counted once their bodies are in; more are refused with 503 and Retry-After. */
  readonly maxInFlight: number;
}

/** Why a request was turned away, as the HTTP answer says it. */
export interface Refusal {
  readonly status: number;
  readonly code: LudusErrorCode;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const JSON_TYPE = 'application/json';

/**
 * The door of a ludus server, checked in this order before a body is read: the `Host` header (a DNS-rebinding page
 * names a host of its own; `localhost` and IP literals cannot be rebound), the `Origin` of a browser (only the
 * allowed ones: no page calls a model server unless the operator said so), the bearer token (constant-time), the
 * content type of a body (JSON only: a form or `text/plain` post, which a page sends without a preflight, is 415),
 * and the declared body size. A body is then read within the size bound and the body timeout, and only then does
 * the request count against those in flight (`busy`): a slow body holds a connection, never a slot of work.
 */
export class RequestGuard {
  private readonly origins: OriginAllowlist;
  private readonly hosts: ReadonlySet<string>;
  private active = 0;

  constructor(readonly options: RequestGuardOptions) {
    this.origins = new OriginAllowlist(options.allowOrigins ?? []);
    this.hosts = new Set((options.allowHosts ?? []).map((host) => host.trim().toLowerCase()));
  }

  /** A CORS preflight from an allowed origin gets its answer here (browsers send no token with one). */
  preflight(request: IncomingMessage): Refusal | { readonly headers: Record<string, string> } | undefined {
    if (request.method !== 'OPTIONS') return undefined;
    const host = this.checkHost(request);
    if (host) return host;
    const origin = request.headers.origin;
    if (origin === undefined || !this.origins.allows(origin)) return { status: 403, code: 'FORBIDDEN', message: `origin ${origin ?? '(none)'} is not allowed (start the server with --allow-origin to allow a page)` };
    return { headers: { ...this.corsHeaders(request), 'access-control-allow-methods': 'GET, POST', 'access-control-allow-headers': 'authorization, content-type', 'access-control-max-age': '600' } };
  }

  /** The refusal for a request's headers, or undefined when it may go on; `maxBodyBytes` a route's own bound. */
  check(request: IncomingMessage, maxBodyBytes = this.options.maxBodyBytes): Refusal | undefined {
    const host = this.checkHost(request);
    if (host) return host;
    const origin = request.headers.origin;
    if (origin !== undefined && !this.origins.allows(origin)) {
      return { status: 403, code: 'FORBIDDEN', message: `origin ${origin} is not allowed (start the server with --allow-origin ${origin} if that page should call it)` };
    }
    const authorization = request.headers.authorization ?? '';
    const given = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    if (given === undefined || !tokensMatch(this.options.token, given)) {
      return {
        status: 401,
        code: 'UNAUTHORIZED',
        message: `${authorization === '' ? 'no token' : 'a wrong token'}: send the token the server printed at start (or its LUDUS_TOKEN) as "Authorization: Bearer <token>"`,
        headers: { 'www-authenticate': 'Bearer' },
      };
    }
    if (hasBody(request)) {
      const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (type !== JSON_TYPE) return { status: 415, code: 'CONTENT_TYPE_UNSUPPORTED', message: `content-type ${type || '(none)'}: bodies must be ${JSON_TYPE}` };
    }
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > maxBodyBytes) return tooLarge(declared, maxBodyBytes);
    return undefined;
  }

  /** The refusal of a request whose body is in, when the requests in flight are already as many as the server takes. */
  busy(): Refusal | undefined {
    if (this.active < this.options.maxInFlight) return undefined;
    return { status: 503, code: 'SERVER_BUSY', message: `${this.active} requests are in flight, the most this server takes at once (--max-in-flight); retry shortly`, headers: { 'retry-after': '1' } };
  }

  /** Headers that let an allowed page read the answer. */
  corsHeaders(request: IncomingMessage): Record<string, string> {
    const origin = request.headers.origin;
    return origin !== undefined && this.origins.allows(origin) ? { 'access-control-allow-origin': origin, vary: 'Origin' } : {};
  }

  /** Runs `work` as one of the requests in flight. */
  async admitted<T>(work: () => Promise<T>): Promise<T> {
    this.active += 1;
    try {
      return await work();
    } finally {
      this.active -= 1;
    }
  }

  /**
   * The body, read until the size bound and no further (REQUEST_TOO_LARGE then: the rest is drained unread, so the
   * client still gets its 413, and nothing past the bound is held), and within `timeoutMs` of now (REQUEST_TIMEOUT).
   */
  readBody(request: IncomingMessage, max = this.options.maxBodyBytes, timeoutMs = Number.POSITIVE_INFINITY): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const stop = (error: LudusError) => {
        clearTimeout(timer);
        request.off('data', onData);
        chunks.length = 0;
        reject(error);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size <= max) return void chunks.push(chunk);
        request.resume();
        stop(new LudusError('REQUEST_TOO_LARGE', tooLarge(size, max).message, { bytes: size }));
      };
      const timer = Number.isFinite(timeoutMs)
        ? setTimeout(() => stop(new LudusError('REQUEST_TIMEOUT', `the body did not arrive whole within ${timeoutMs / 1000} s of its headers`)), timeoutMs)
        : undefined;
      request.on('data', onData);
      request.once('end', () => {
        clearTimeout(timer);
        resolve(Buffer.concat(chunks));
      });
      request.once('error', () => stop(new LudusError('REQUEST_INVALID', 'the client closed the connection before its body ended')));
    });
  }

  private checkHost(request: IncomingMessage): Refusal | undefined {
    if (hostAllowed(request.headers.host, this.hosts)) return undefined;
    return { status: 403, code: 'FORBIDDEN', message: `host ${request.headers.host ?? '(none)'} is not this server's (localhost, an IP address, or a name given with --allow-host)` };
  }
}

/**
 * Whether a `Host` header names this machine as no rebound DNS name can: `localhost`, an IP literal, or one of the
 * names the operator allowed. A page on evil.example whose name was rebound to 127.0.0.1 still sends its own name.
 */
export function hostAllowed(host: string | undefined, allowed: ReadonlySet<string> = new Set()): boolean {
  const name = hostName(host);
  return name !== undefined && (name === 'localhost' || isIP(name) !== 0 || allowed.has(name));
}

/** The name in a `Host` header, lower case, without its port or an IPv6 literal's brackets. */
function hostName(host: string | undefined): string | undefined {
  if (host === undefined || host === '') return undefined;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
  if (bracketed) return bracketed[1].toLowerCase();
  return host.replace(/:\d+$/, '').toLowerCase();
}

function hasBody(request: IncomingMessage): boolean {
  return Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
}

function tooLarge(bytes: number, max: number): Refusal {
  return { status: 413, code: 'REQUEST_TOO_LARGE', message: `a body of ${bytes} bytes is over this server's ${max} (--max-body-mb)` };
}

/** Bytes in `mb` mebibytes, for the --max-body-mb flags. */
export const mebibytes = (mb: number): number => Math.round(mb * 2 ** 20);

/** Fails when a request-sized quantity is over its bound: REQUEST_TOO_LARGE naming the field and the flag. */
export function ensureWithin(what: string, value: number, max: number, flag: string, field?: string): void {
  if (value > max) fail('REQUEST_TOO_LARGE', `${what}: ${value} is over this server's ${max} (${flag})`, { ...(field ? { field } : {}), value, max });
}
