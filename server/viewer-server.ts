import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { LudusError } from '../core/errors.ts';
import { CONNECTION_LIMITS, ConnectionGate, type ConnectionLimits } from './connection-gate.ts';
import { BroadcastHub, type HubOptions } from './hub.ts';
import { OriginAllowlist } from './origin-allowlist.ts';
import { hostAllowed } from './request-guard.ts';
import { StaticAssets } from './static-assets.ts';

export interface ViewerServerOptions {
  /** 0 picks a free port. */
  readonly port: number;
  readonly host?: string;
  /** Origins allowed besides the loopback ones of this port. */
  readonly allowOrigins?: readonly string[];
  readonly hub?: Partial<HubOptions>;
  /** Frames larger than this are cut by the transport (close 1009); smaller bad messages get an error reply. */
  readonly maxPayload?: number;
  /** Connection caps and timeouts (CONNECTION_LIMITS where absent): a silent connection is closed, and counted apart from the spectators. */
  readonly connections?: Partial<ConnectionLimits>;
}

export interface ViewerServer {
  readonly url: string;
  readonly port: number;
  readonly hub: BroadcastHub;
  readonly origins: OriginAllowlist;
  close(): Promise<void>;
}

/** No other page may frame the viewer (clickjacking its control buttons): frame-ancestors, and X-Frame-Options for older browsers. */
const CONTENT_SECURITY_POLICY = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

/** One HTTP server on loopback: the viewer page and its assets, and the WebSocket endpoint `/ws` on the same port. */
export async function startViewerServer(options: ViewerServerOptions): Promise<ViewerServer> {
  const host = options.host ?? '127.0.0.1';
  const assets = new StaticAssets();
  const hub = new BroadcastHub(options.hub);
  const gate = new ConnectionGate({ ...CONNECTION_LIMITS, ...options.connections });
  const http = createServer((request, response) => void serveAsset(assets, gate, request, response));
  gate.attach(http);
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload ?? 16 * 1024 });
  let origins = new OriginAllowlist([]);
  http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path !== '/ws') return reject(socket, 404, 'Not Found');
    if (!hostAllowed(request.headers.host)) return reject(socket, 403, 'Forbidden: host not allowed');
    if (!origins.allows(request.headers.origin)) return reject(socket, 403, 'Forbidden: origin not allowed');
    gate.cleared(request.socket);
    wss.handleUpgrade(request, socket, head, (ws) => hub.attach(ws));
  });
  const port = await listen(http, options.port, host);
  origins = OriginAllowlist.loopback(port, options.allowOrigins ?? []);
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/`,
    port,
    hub,
    origins,
    close: async () => {
      hub.close();
      wss.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function listen(http: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new LudusError('INPUT_INVALID', `port ${port} is in use; pass --port N (0 picks a free one) or --no-watch`, { port }) : error);
    http.once('error', onError);
    http.listen(port, host, () => {
      http.off('error', onError);
      const address = http.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

async function serveAsset(assets: StaticAssets, gate: ConnectionGate, request: IncomingMessage, response: ServerResponse): Promise<void> {
  // A page whose DNS name was rebound to this machine sends its own name as Host: it gets nothing here.
  if (!hostAllowed(request.headers.host)) {
    response.writeHead(403, { 'content-type': 'text/plain' }).end('host not allowed\n');
    return;
  }
  gate.cleared(request.socket);
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  if (request.url === '/favicon.ico') {
    response.writeHead(204).end();
    return;
  }
  const asset = await assets.get(new URL(request.url ?? '/', 'http://localhost').pathname).catch(() => undefined);
  if (!asset) {
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    return;
  }
  response.writeHead(200, {
    'content-type': asset.type,
    'content-length': asset.body.length,
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-cache',
  });
  response.end(request.method === 'HEAD' ? undefined : asset.body);
}

function reject(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
