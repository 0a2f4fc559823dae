import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LudusError } from '../../../core/errors.ts';
import { parseAnswer } from '../../../engine/remote/dialect.ts';
import { ServerPool } from '../../../engine/remote/server-pool.ts';

type Handler = (request: IncomingMessage, response: ServerResponse, count: number) => void;

const servers: Server[] = [];

/** A loopback server on a free port that answers its n-th request as `handler` says. */
async function scripted(handler: Handler): Promise<{ url: string; requests: () => number }> {
  let count = 0;
  const server = createServer((request, response) => {
    count += 1;
    request.resume();
    request.on('end', () => handler(request, response, count));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => count };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const json = (response: ServerResponse, status: number, body: string) => {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
};
// A generous timeout, so a loaded machine never turns a slow answer into one more attempt; the timeout test sets its own.
const options = { maxConcurrency: 4, timeoutMs: 10_000, retries: 2, backoffMs: 5 };
const Answer = z.strictObject({ ok: z.literal(true) });
const parse = (body: unknown) => parseAnswer(Answer, body, 'test answer');

describe('ServerPool', () => {
  describe('having a server that fails twice with 500 and then answers', () => {
    it('should retry and return the answer', async () => {
      const server = await scripted((_q, r, n) => (n <= 2 ? json(r, 500, '{"error":"busy"}') : json(r, 200, '{"ok":true}')));
      await expect(new ServerPool([server.url], options).post(0, '/x', {}, parse)).resolves.toEqual({ ok: true });
      expect(server.requests()).toBe(3);
    });
  });

  describe('having a server that always answers 500', () => {
    it('should fail with REMOTE_UNAVAILABLE after 1 + retries attempts', async () => {
      const server = await scripted((_q, r) => json(r, 500, '{}'));
      await expect(new ServerPool([server.url], options).post(0, '/x', {}, parse)).rejects.toMatchObject({ code: 'REMOTE_UNAVAILABLE', message: expect.stringContaining('HTTP 500') });
      expect(server.requests()).toBe(3);
    });
  });

  describe('having a server that never answers', () => {
    it('should time each attempt out and fail with REMOTE_UNAVAILABLE', async () => {
      const server = await scripted(() => undefined);
      await expect(new ServerPool([server.url], { ...options, retries: 1, timeoutMs: 400 }).post(0, '/x', {}, parse)).rejects.toMatchObject({ code: 'REMOTE_UNAVAILABLE', message: expect.stringContaining('no whole answer within 400 ms') });
      expect(server.requests()).toBe(2);
    });
  });

  describe('having a server that answers malformed JSON once', () => {
    it('should retry and return the next answer', async () => {
      const server = await scripted((_q, r, n) => json(r, 200, n === 1 ? '{"ok": tr' : '{"ok":true}'));
      await expect(new ServerPool([server.url], options).post(0, '/x', {}, parse)).resolves.toEqual({ ok: true });
      expect(server.requests()).toBe(2);
    });
  });

  describe('having a server that drops the connection mid-response', () => {
    it('should retry and return the next answer', async () => {
      const server = await scripted((_q, r, n) => {
        if (n > 1) return json(r, 200, '{"ok":true}');
        r.writeHead(200, { 'content-type': 'application/json', 'content-length': 200 });
        r.write('{"ok":tr');
        setTimeout(() => r.socket?.destroy(), 10);
      });
      await expect(new ServerPool([server.url], options).post(0, '/x', {}, parse)).resolves.toEqual({ ok: true });
      expect(server.requests()).toBe(2);
    });
  });

  describe('having a server that refuses the request with 400', () => {
    it('should fail at once with REMOTE_REJECTED carrying its message', async () => {
      const server = await scripted((_q, r) => json(r, 400, '{"error":{"message":"max_tokens must be at least 1"}}'));
      await expect(new ServerPool([server.url], options).post(0, '/x', {}, parse)).rejects.toMatchObject({ code: 'REMOTE_REJECTED', message: expect.stringContaining('max_tokens must be at least 1') });
      expect(server.requests()).toBe(1);
    });
  });

  describe('having a server that answers JSON of the wrong shape', () => {
    it('should fail at once with REMOTE_RESPONSE_INVALID', async () => {
      const server = await scripted((_q, r) => json(r, 200, '{"ok":"yes"}'));
      await expect(new ServerPool([server.url], options).post(0, '/x', {}, parse)).rejects.toMatchObject({ code: 'REMOTE_RESPONSE_INVALID' });
      expect(server.requests()).toBe(1);
    });
  });

  describe('having two servers', () => {
    it('should send a key to the same server every time, and move its keys to the other when it is down', async () => {
      const a = await scripted((_q, r) => json(r, 200, '{"ok":true}'));
      const b = await scripted((_q, r) => json(r, 200, '{"ok":true}'));
      const pool = new ServerPool([a.url, b.url], options);
      expect([0, 1, 2, 3, 7].map((key) => pool.serverFor(key))).toEqual([0, 1, 0, 1, 1]);
      for (const key of [0, 2, 4]) await pool.post(key, '/x', {}, parse);
      expect([a.requests(), b.requests()]).toEqual([3, 0]);
      const downed = new ServerPool(['http://127.0.0.1:9', b.url], { ...options, retries: 0 });
      await expect(downed.post(0, '/x', {}, parse)).resolves.toEqual({ ok: true });
      expect(downed.serverFor(0)).toBe(1);
    });
  });

  describe('having more requests than the concurrency limit', () => {
    it('should keep at most that many in flight at the server', async () => {
      let inFlight = 0;
      let most = 0;
      const server = await scripted((_q, r) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        setTimeout(() => {
          inFlight -= 1;
          json(r, 200, '{"ok":true}');
        }, 30);
      });
      const pool = new ServerPool([server.url], { ...options, maxConcurrency: 2 });
      await Promise.all(Array.from({ length: 7 }, () => pool.post(0, '/x', {}, parse)));
      expect(server.requests()).toBe(7);
      expect(most).toBe(2);
    });
  });

  describe('having health checks', () => {
    it('should pass on healthy servers and name the ones that are not', async () => {
      const healthy = await scripted((_q, r) => r.end());
      await expect(new ServerPool([healthy.url], options).checkHealth()).resolves.toBeUndefined();
      await expect(new ServerPool([healthy.url, 'http://127.0.0.1:9'], { ...options, retries: 0 }).checkHealth()).rejects.toMatchObject({
        code: 'REMOTE_UNAVAILABLE',
        message: expect.stringContaining('http://127.0.0.1:9'),
      });
    });
  });

  describe('having a broadcast while one of two servers is dead', () => {
    it('should push to the live one, take the dead one out of the pool, and fail only when a server refuses or none takes it', async () => {
      const a = await scripted((_q, r) => json(r, 200, '{"ok":true}'));
      const pool = new ServerPool([a.url, 'http://127.0.0.1:9'], { ...options, retries: 0 });
      await expect(pool.broadcast('/load', {}, parse)).resolves.toEqual([{ ok: true }]);
      expect(pool.live()).toEqual([0]);
      expect(pool.serverFor(1)).toBe(0);
      const refusing = await scripted((_q, r) => json(r, 400, '{"error":{"message":"rank 64 > max_lora_rank 16"}}'));
      await expect(new ServerPool([a.url, refusing.url], options).broadcast('/load', {}, parse)).rejects.toMatchObject({ code: 'REMOTE_REJECTED' });
      await expect(new ServerPool(['http://127.0.0.1:9'], { ...options, retries: 0 }).broadcast('/load', {}, parse)).rejects.toMatchObject({ code: 'REMOTE_UNAVAILABLE' });
    });
  });

  describe('having a down server that answers its health check again', () => {
    it('should re-sync it before it rejoins, and keep it out while it is dead or its re-sync fails', async () => {
      let alive = false;
      const b = await scripted((_q, r) => (alive ? json(r, 200, '{"ok":true}') : r.socket?.destroy()));
      const a = await scripted((_q, r) => json(r, 200, '{"ok":true}'));
      const pool = new ServerPool([a.url, b.url], { ...options, retries: 0 });
      await pool.broadcast('/load', {}, parse);
      expect(pool.live()).toEqual([0]);
      const resynced: number[] = [];
      expect(await pool.revive('/health', async (server) => void resynced.push(server))).toEqual([]);
      expect(resynced).toEqual([]);
      alive = true;
      const failing = async () => {
        throw new LudusError('REMOTE_UNAVAILABLE', 'died again');
      };
      expect(await pool.revive('/health', failing)).toEqual([]);
      expect(pool.live()).toEqual([0]);
      expect(await pool.revive('/health', async (server) => void resynced.push(server))).toEqual([1]);
      expect(resynced).toEqual([1]);
      expect(pool.live()).toEqual([0, 1]);
      expect(pool.serverFor(1)).toBe(1);
    });
  });
});
