import { LudusError, fail } from '../../core/errors.ts';

export interface ServerPoolOptions {
  /** Requests in flight per server; more wait their turn. */
  readonly maxConcurrency: number;
  /** Per attempt: a server that has not answered whole by then counts as a transport failure. */
  readonly timeoutMs: number;
  /** Further attempts after a transport failure, a 429, a 5xx or a body that is not JSON (never after another 4xx). */
  readonly retries: number;
  /** The first retry waits this long, each next one twice as long. */
  readonly backoffMs: number;
  /** What the servers are, in messages ('rollout server' when absent). */
  readonly what?: string;
  /** Sent on every request as `Authorization: Bearer <token>`. */
  readonly token?: string;
}

/** How long a down server has to answer its health check before it is taken as still down (ours). */
const REVIVE_PROBE_MS = 2_000;

/** The longest a server's Retry-After is honoured (ours); a longer one waits this long. */
const MAX_RETRY_AFTER_MS = 30_000;

/** A failure worth another attempt: the connection, the clock, the server's own error or rate limit, a body cut short. */
class TransportError extends Error {
  constructor(
    message: string,
    /** What the server asked to wait before the next attempt (Retry-After), if it said. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/**
 * Rollout servers behind one door: a concurrency limit per server, a timeout per attempt, retries with exponential
 * backoff on transport failures (connection refused or dropped, timeouts, 429 and 5xx, a Retry-After honoured up to
 * 30 s, malformed JSON) and never on a server's other 4xx (REMOTE_REJECTED) or on a body of the wrong shape (REMOTE_RESPONSE_INVALID). Work is assigned by key
 * (`serverFor`), the same key to the same server, so a row's requests meet its prefix cache and a seed replays on
 * the server it ran on; a server that fails every attempt is marked down and its keys move to the next live server.
 * Broadcasts (weight pushes) go to the live servers and succeed while one of them takes the push; one that fails it is
 * marked down, so no live server ever holds older weights than another. A down server rejoins only through `revive`,
 * which re-syncs it first.
 */
export class ServerPool {
  private readonly down = new Set<number>();
  /** Attempts made after a failed one, over the pool's life. */
  retried = 0;
  private readonly active: number[];
  private readonly waiting: Array<Array<() => void>>;
  /** Bytes of the JSON bodies sent and received so far, every attempt counted (headers are not). */
  readonly traffic = { sent: 0, received: 0 };

  constructor(
    readonly urls: readonly string[],
    readonly options: ServerPoolOptions,
  ) {
    if (urls.length === 0) fail('CONFIG_INVALID', 'a server pool needs at least one server URL');
    this.active = urls.map(() => 0);
    this.waiting = urls.map(() => []);
  }

  /** Waits until every server answers `path` with 2xx (each with the pool's retries); REMOTE_UNAVAILABLE names the ones that never did. */
  async checkHealth(path = '/health'): Promise<void> {
    const results = await Promise.allSettled(this.urls.map((_, server) => this.attempts(server, 'GET', path, undefined, () => undefined)));
    const failed = results.flatMap((result, server) => (result.status === 'rejected' ? [`${this.urls[server]} (${(result.reason as Error).message})`] : []));
    if (failed.length > 0) fail('REMOTE_UNAVAILABLE', `${this.options.what ?? 'rollout server'}s not healthy at ${path}: ${failed.join('; ')}`, { servers: failed });
  }

  /** The server for a key: the key's own one while it is live, else the next live one after it. */
  serverFor(key: number): number {
    const n = this.urls.length;
    const start = ((key % n) + n) % n;
    for (let i = 0; i < n; i++) {
      const server = (start + i) % n;
      if (!this.down.has(server)) return server;
    }
    return fail('REMOTE_UNAVAILABLE', `every ${this.options.what ?? 'rollout server'} is down (${this.urls.join(', ')})`, { servers: this.urls });
  }

  /**
   * POSTs a JSON body to the key's server and parses the answer; when that server fails every attempt it is marked
   * down and the request moves on to the next live one.
   */
  async post<T>(key: number, path: string, body: unknown, parse: (json: unknown) => T, signal?: AbortSignal): Promise<T> {
    for (;;) {
      const server = this.serverFor(key);
      try {
        return await this.attempts(server, 'POST', path, body, parse, signal);
      } catch (error) {
        if (!(error instanceof LudusError && error.code === 'REMOTE_UNAVAILABLE') || signal?.aborted) throw error;
        this.down.add(server);
        if (this.down.size === this.urls.length) throw error;
      }
    }
  }

  /** The servers not marked down. */
  live(): number[] {
    return this.urls.map((_, server) => server).filter((server) => !this.down.has(server));
  }

  /**
   * POSTs to every live server (weight sync): a server that fails every attempt leaves the pool, the others keep the
   * push; a refusal (4xx, a body of the wrong shape) fails the broadcast, and so does every server failing.
   */
  async broadcast<T>(path: string, body: unknown, parse: (json: unknown) => T): Promise<T[]> {
    const servers = this.live();
    if (servers.length === 0) return fail('REMOTE_UNAVAILABLE', `every ${this.options.what ?? 'rollout server'} is down (${this.urls.join(', ')})`, { servers: this.urls });
    const results = await Promise.allSettled(servers.map((server) => this.attempts(server, 'POST', path, body, parse)));
    const refused = results.find((result): result is PromiseRejectedResult => result.status === 'rejected' && !LudusError.is(result.reason, 'REMOTE_UNAVAILABLE'));
    if (refused) throw refused.reason;
    results.forEach((result, k) => {
      if (result.status === 'rejected') this.down.add(servers[k]);
    });
    const taken = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    if (taken.length === 0) throw (results[0] as PromiseRejectedResult).reason;
    return taken;
  }

  /** POSTs to one server, with the pool's retries, whether it is marked down or not (probes, re-syncs). */
  postTo<T>(server: number, path: string, body: unknown, parse: (json: unknown) => T): Promise<T> {
    return this.attempts(server, 'POST', path, body, parse);
  }

  /**
   * Brings back the down servers that answer `healthPath` again: each is re-synced first (`resync` pushes the current
   * weights to it) and rejoins only once that succeeded; one still dead, or failing its re-sync, stays down. Returns
   * the servers that rejoined.
   */
  async revive(healthPath: string, resync: (server: number) => Promise<void>): Promise<number[]> {
    const back: number[] = [];
    for (const server of [...this.down]) {
      const healthy = await this.once(`${this.urls[server].replace(/\/+$/, '')}${healthPath}`, 'GET', undefined, undefined, Math.min(this.options.timeoutMs, REVIVE_PROBE_MS)).then(
        () => true,
        () => false,
      );
      if (!healthy) continue;
      try {
        await resync(server);
      } catch (error) {
        if (LudusError.is(error, 'REMOTE_UNAVAILABLE')) continue;
        throw error;
      }
      this.down.delete(server);
      back.push(server);
    }
    return back;
  }

  private async attempts<T>(server: number, method: 'GET' | 'POST', path: string, body: unknown, parse: (json: unknown) => T, signal?: AbortSignal): Promise<T> {
    const url = `${this.urls[server].replace(/\/+$/, '')}${path}`;
    let last: TransportError | undefined;
    for (let attempt = 0; attempt <= this.options.retries; attempt++) {
      if (attempt > 0) {
        this.retried += 1;
        await sleep(Math.max(this.options.backoffMs * 2 ** (attempt - 1), last?.retryAfterMs ?? 0), signal);
      }
      if (signal?.aborted) break;
      const json = await this.withSlot(server, () => this.once(url, method, body, signal)).catch((error: unknown) => {
        if (error instanceof TransportError) return error;
        throw error;
      });
      if (json instanceof TransportError) {
        last = json;
        continue;
      }
      return parse(json);
    }
    return fail('REMOTE_UNAVAILABLE', `${method} ${url}: ${signal?.aborted ? 'aborted' : `failed ${this.options.retries + 1} times, last: ${last?.message}`}`, { url, attempts: this.options.retries + 1 });
  }

  /** One attempt: the parsed JSON body (undefined for an empty 2xx), or a TransportError, or REMOTE_REJECTED for a 4xx. */
  private async once(url: string, method: 'GET' | 'POST', body: unknown, signal?: AbortSignal, timeoutMs = this.options.timeoutMs): Promise<unknown> {
    const timeout = AbortSignal.timeout(timeoutMs);
    let text: string;
    let status: number;
    let retryAfter: string | null = null;
    try {
      const sent = body === undefined ? undefined : JSON.stringify(body);
      if (sent !== undefined) this.traffic.sent += Buffer.byteLength(sent);
      const response = await fetch(url, {
        method,
        headers: { ...(this.options.token !== undefined ? { authorization: `Bearer ${this.options.token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(sent === undefined ? {} : { body: sent }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      text = await response.text();
      this.traffic.received += Buffer.byteLength(text);
    } catch (error) {
      const reason = timeout.aborted ? `no whole answer within ${timeoutMs} ms` : describe(error);
      throw new TransportError(reason);
    }
    if (status >= 500 || status === 429) throw new TransportError(`HTTP ${status}: ${text.slice(0, 300)}`, retryAfterMs(retryAfter));
    if (status >= 400) fail('REMOTE_REJECTED', `${method} ${url} was refused with HTTP ${status}: ${text.slice(0, 500)}`, { url, status });
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // vLLM answers some control endpoints with plain text; a 2xx that is not JSON is kept as its text.
      if (!/^\s*[[{"]/.test(text)) return text;
      throw new TransportError(`malformed JSON (${text.length} bytes): ${text.slice(0, 120)}`);
    }
  }

  /** Runs with one of the server's slots; a finishing request hands its slot straight to the next in line. */
  private async withSlot<T>(server: number, run: () => Promise<T>): Promise<T> {
    if (this.active[server] >= this.options.maxConcurrency) await new Promise<void>((resolve) => this.waiting[server].push(resolve));
    else this.active[server] += 1;
    try {
      return await run();
    } finally {
      const next = this.waiting[server].shift();
      if (next) next();
      else this.active[server] -= 1;
    }
  }
}

/** A Retry-After header's wait in milliseconds (seconds or an HTTP date), at most MAX_RETRY_AFTER_MS; undefined when absent or unreadable. */
function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = /^\s*\d+(\.\d+)?\s*$/.test(header) ? Number(header) * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(seconds) ? Math.min(Math.max(seconds, 0), MAX_RETRY_AFTER_MS) : undefined;
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}
