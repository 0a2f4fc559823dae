import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { fail } from '../core/errors.ts';

/** How long and how many connections a ludus server holds for clients that have not shown the token; each a default of ours. */
export interface ConnectionLimits {
  /** Connections that have not yet sent a request with the token, at most: past it the oldest of them is closed. */
  readonly maxUnauthenticated: number;
  /** Of those, from one address at most: past it that address's oldest is closed. */
  readonly maxUnauthenticatedPerAddress: number;
  /** Connections of every kind at most: past it new ones are closed at once (Node's `maxConnections`). */
  readonly maxConnections: number;
  /** A connection must send a request with the token within this long of opening, and every request its headers. */
  readonly headersTimeoutMs: number;
  /** A request's body must arrive whole within this long of its headers (408, and the connection is closed). */
  readonly bodyTimeoutMs: number;
  /** A connection idle between requests is closed after this long (Node's `keepAliveTimeout`). */
  readonly idleTimeoutMs: number;
}

export const CONNECTION_LIMITS: ConnectionLimits = {
  maxUnauthenticated: 256,
  maxUnauthenticatedPerAddress: 32,
  maxConnections: 2048,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 30_000,
  idleTimeoutMs: 5_000,
};

/**
 * Keeps clients without the token from holding a server's connections: every new connection counts as
 * unauthenticated until a request on it passes the token check; those are capped overall and per address, the
 * oldest closed to make room (a client that sends its request at once is never the oldest), and each lives at
 * most `headersTimeoutMs` unless it authenticates. Counted apart from the requests in flight, which only requests
 * with the token and a whole body enter.
 */
export class ConnectionGate {
  /** Unauthenticated connections, oldest first, with the address each came from (a closed socket forgets its own). */
  private readonly waiting = new Map<Socket, { readonly address: string; readonly timer: NodeJS.Timeout }>();
  private readonly byAddress = new Map<string, Set<Socket>>();

  constructor(readonly limits: ConnectionLimits) {}

  /** Applies the limits to `server`: its timeouts, its connection cap, and this gate on each new connection. */
  attach(server: Server): void {
    server.headersTimeout = this.limits.headersTimeoutMs;
    server.requestTimeout = this.limits.headersTimeoutMs + this.limits.bodyTimeoutMs;
    server.keepAliveTimeout = this.limits.idleTimeoutMs;
    server.maxConnections = this.limits.maxConnections;
    server.on('connection', (socket: Socket) => this.opened(socket));
  }

  /** A request on `socket` passed the door (the token check, or the viewer's host check): it no longer counts against the unauthenticated caps. */
  cleared(socket: Socket): void {
    this.forget(socket);
  }

  /** How many connections wait unauthenticated now. */
  get unauthenticated(): number {
    return this.waiting.size;
  }

  private opened(socket: Socket): void {
    const address = socket.remoteAddress ?? '';
    const timer = setTimeout(() => this.close(socket), this.limits.headersTimeoutMs);
    timer.unref();
    this.waiting.set(socket, { address, timer });
    const mine = this.byAddress.get(address) ?? new Set<Socket>();
    this.byAddress.set(address, mine);
    mine.add(socket);
    socket.once('close', () => this.forget(socket));
    while (mine.size > this.limits.maxUnauthenticatedPerAddress) this.close(oldest(mine));
    while (this.waiting.size > this.limits.maxUnauthenticated) this.close(oldest(this.waiting.keys()));
  }

  private close(socket: Socket): void {
    this.forget(socket);
    socket.destroy();
  }

  private forget(socket: Socket): void {
    const entry = this.waiting.get(socket);
    if (entry === undefined) return;
    this.waiting.delete(socket);
    clearTimeout(entry.timer);
    const mine = this.byAddress.get(entry.address);
    mine?.delete(socket);
    if (mine?.size === 0) this.byAddress.delete(entry.address);
  }
}

/** The first of an insertion-ordered collection (never empty where it is called). */
function oldest(sockets: Iterable<Socket>): Socket {
  for (const socket of sockets) return socket;
  return fail('INTERNAL', 'no connection to close');
}
