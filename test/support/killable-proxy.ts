import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback proxy in front of a server that can be made to die: at once, or on the n-th request to a path (the
 * request is cut off before the server sees it, as a process killed then would cut it), and to come back. Records the
 * paths it forwarded, in order.
 */
export interface KillableProxy {
  readonly url: string;
  /** Paths forwarded to the server, in the order they arrived. */
  readonly seen: string[];
  kill(): void;
  /** Dies on the `nth` request (1-based) to `path` from now on, and stays dead. */
  dieOn(path: string, nth?: number): void;
  revive(): void;
  close(): Promise<void>;
}

export async function killableProxy(target: string): Promise<KillableProxy> {
  const upstream = new URL(target);
  let dead = false;
  let trap: { path: string; left: number } | undefined;
  const seen: string[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const path = incoming.url ?? '/';
    if (trap && path === trap.path && --trap.left === 0) {
      trap = undefined;
      dead = true;
    }
    if (dead) {
      incoming.socket.destroy();
      return;
    }
    seen.push(path);
    const forwarded = httpRequest({ host: upstream.hostname, port: upstream.port, path, method: incoming.method, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forwarded.on('error', () => outgoing.socket?.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    kill() {
      dead = true;
      server.closeAllConnections();
    },
    dieOn(path, nth = 1) {
      trap = { path, left: nth };
    },
    revive() {
      dead = false;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
