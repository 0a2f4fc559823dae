import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startViewerServer } from '../../server/viewer-server.ts';
import { raw } from '../support/raw-http.ts';

/** Issue 46, sections 4 and 7: the viewer cannot be framed, and silent connections cannot hold its descriptors. */
describe('the viewer server', () => {
  describe('having its page requested', () => {
    it("should forbid every page from framing it: frame-ancestors 'none' and X-Frame-Options DENY", async () => {
      const server = await startViewerServer({ port: 0 });
      try {
        const page = await raw(server.url, 'GET', '/', {});
        expect(page.status).toBe(200);
        expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
        expect(page.headers['x-frame-options']).toBe('DENY');
      } finally {
        await server.close();
      }
    });
  });

  describe('having 300 connections that never send a request', () => {
    it('should close all but its per-address cap at once and the rest within the header timeout, and keep serving the page', async () => {
      const server = await startViewerServer({ port: 0, connections: { headersTimeoutMs: 500, maxUnauthenticatedPerAddress: 32 } });
      const sockets: Socket[] = [];
      let closed = 0;
      try {
        for (let i = 0; i < 300; i++) {
          const socket = connect(server.port, '127.0.0.1');
          socket.on('error', () => undefined);
          socket.on('close', () => (closed += 1));
          sockets.push(socket);
        }
        await expect.poll(() => closed, { timeout: 5_000 }).toBeGreaterThanOrEqual(300 - 32);
        expect((await raw(server.url, 'GET', '/', {})).status).toBe(200);
        await expect.poll(() => closed, { timeout: 5_000 }).toBe(300);
      } finally {
        for (const socket of sockets) socket.destroy();
        await server.close();
      }
    });
  });
});
