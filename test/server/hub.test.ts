import { get as httpGet } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { LudusEvent, UnsequencedEvent } from '../../core/events.ts';
import type { View } from '../../core/game/view.ts';
import { BroadcastHub, DEFAULT_HUB_OPTIONS, type HubOptions } from '../../server/hub.ts';
import { spectatorView } from '../../server/spectator-view.ts';
import { startViewerServer, type ViewerServer } from '../../server/viewer-server.ts';
import type { ServerMessage, WireEvent } from '../../server/wire.ts';
import { FakeSocket, Spectator, until } from './hub-clients.ts';

const event = (e: UnsequencedEvent): LudusEvent => ({ ...e, seq: 0 }) as LudusEvent;
const start = (matchId: string) => event({ type: 'match-start', matchId, game: 'tandem', seed: 1, seats: { senior: 'senior', junior: 'junior' } });
const token = (matchId: string, position: number, text: string, author = 'senior') =>
  event({ type: 'tokens', matchId, turn: 0, position, tokens: [position], authors: [author], text });
const end = (matchId: string) => event({ type: 'match-end', matchId, outcome: { senior: 1, junior: 1 } });

const servers: ViewerServer[] = [];
const spectators: Spectator[] = [];
afterEach(async () => {
  for (const spectator of spectators.splice(0)) spectator.close();
  for (const server of servers.splice(0)) await server.close();
});

async function serve(hub: Partial<HubOptions> = {}, allowOrigins: string[] = []): Promise<ViewerServer> {
  const server = await startViewerServer({ port: 0, hub: { flushMs: 5, ...hub }, allowOrigins });
  servers.push(server);
  server.hub.addRun({ id: 'run', game: 'tandem', status: 'running' });
  return server;
}

async function spectate(server: ViewerServer, options: ConstructorParameters<typeof Spectator>[1] = {}): Promise<Spectator> {
  const spectator = new Spectator(`ws://127.0.0.1:${server.port}/ws`, options);
  spectators.push(spectator);
  await spectator.opened;
  return spectator;
}

/** A client message as the hub receives it from the socket. */
const ask = (socket: FakeSocket, message: object) => socket.emit('message', Buffer.from(JSON.stringify(message)), false);

const seqs = (events: readonly WireEvent[]) => events.map((e) => e.seq);
const strictlyIncreasing = (values: readonly number[]) => values.every((v, i) => i === 0 || v > values[i - 1]);

describe('BroadcastHub', () => {
  describe('having a spectator connect while a match runs', () => {
    it('should send a snapshot with the match so far, then events with strictly increasing seq', async () => {
      const server = await serve();
      server.hub.publish('run', start('m'));
      server.hub.publish('run', token('m', 0, 'two'));
      server.hub.flush();
      const spectator = await spectate(server);
      const [snapshot] = await Promise.all([spectator.next((m) => m.type === 'snapshot')]);
      expect(snapshot).toMatchObject({ type: 'snapshot', seq: 1, runs: [{ id: 'run', status: 'running' }], live: [{ matchId: 'm', tokenCount: 1, spans: [{ author: 'senior', text: 'two' }] }] });
      for (let i = 1; i < 40; i++) server.hub.publish('run', token('m', i, ` w${i}`, i % 2 ? 'junior' : 'senior'));
      server.hub.publish('run', end('m'));
      await until(() => spectator.events.some((e) => e.type === 'match-end'));
      expect(spectator.messages[0].type).toBe('snapshot');
      expect(spectator.events[0].seq).toBe(2);
      expect(strictlyIncreasing(seqs(spectator.events))).toBe(true);
      expect(spectator.events).toHaveLength(40);
    });
  });

  describe('having many spectators', () => {
    it('should serialize each batch once and send the same frame to all', async () => {
      const hub = new BroadcastHub({ flushMs: 1000, heartbeatMs: 0 });
      hub.addRun({ id: 'run', game: 'tandem', status: 'running' });
      const sockets = Array.from({ length: 20 }, () => new FakeSocket());
      for (const socket of sockets) hub.attach(socket.asWebSocket());
      hub.publish('run', start('m'));
      for (let i = 0; i < 10; i++) hub.publish('run', token('m', i, 'x'));
      hub.flush();
      hub.publish('run', end('m'));
      hub.flush();
      hub.close();
      expect(hub.stats.sharedSerializations).toBe(2);
      expect(hub.stats.clientSerializations).toBe(0);
      for (const socket of sockets) {
        expect(socket.sent).toHaveLength(3);
        expect(socket.buffers[1]).toBe(sockets[0].buffers[1]);
      }
    });
  });

  describe('having a client above the low watermark', () => {
    it('should coalesce its token events and send them in seq order once it drains', () => {
      const hub = new BroadcastHub({ flushMs: 1000, heartbeatMs: 0, lowWatermark: 100, highWatermark: 1000 });
      hub.addRun({ id: 'run', game: 'tandem', status: 'running' });
      const slow = new FakeSocket();
      const fast = new FakeSocket();
      hub.attach(slow.asWebSocket());
      hub.attach(fast.asWebSocket());
      slow.bufferedAmount = 500;
      hub.publish('run', start('a'));
      hub.publish('run', start('b'));
      for (let i = 0; i < 5; i++) {
        hub.publish('run', token('a', i, `a${i}`));
        hub.publish('run', token('b', i, `b${i}`));
      }
      hub.flush();
      expect(slow.sent).toHaveLength(1);
      slow.bufferedAmount = 0;
      hub.flush();
      hub.close();
      const [, caughtUp] = slow.messages;
      if (caughtUp.type !== 'events') throw new Error('expected events');
      expect(caughtUp.events.map((e) => e.type)).toEqual(['match-start', 'match-start', 'tokens', 'tokens']);
      expect(strictlyIncreasing(seqs(caughtUp.events))).toBe(true);
      expect(caughtUp.events[2]).toMatchObject({ matchId: 'a', position: 0, text: 'a0a1a2a3a4', tokens: [0, 1, 2, 3, 4] });
      expect(caughtUp.events[3]).toMatchObject({ matchId: 'b', text: 'b0b1b2b3b4' });
      const fastEvents = fast.messages.flatMap((m) => (m.type === 'events' ? m.events : []));
      expect(fastEvents).toHaveLength(12);
    });
  });

  describe('having a slow client whose backlog overflows', () => {
    it('should resync it with a fresh snapshot instead of an unbounded queue', () => {
      const hub = new BroadcastHub({ flushMs: 1000, heartbeatMs: 0, lowWatermark: 100, highWatermark: 1000, backlogCapacity: 8 });
      hub.addRun({ id: 'run', game: 'tandem', status: 'running' });
      const slow = new FakeSocket();
      hub.attach(slow.asWebSocket());
      slow.bufferedAmount = 500;
      for (let m = 0; m < 12; m++) hub.publish('run', start(`m${m}`));
      hub.flush();
      slow.bufferedAmount = 0;
      hub.flush();
      hub.close();
      expect(slow.messages.map((m) => m.type)).toEqual(['snapshot', 'snapshot']);
      expect(slow.messages[1]).toMatchObject({ seq: 11 });
      expect(hub.stats.resynced).toBe(1);
    });
  });

  describe('having a client above the low watermark that asks for matches and snapshots', () => {
    it('should hold the replies until it drains, send them in order, and one fresh snapshot for its resyncs', () => {
      const hub = new BroadcastHub({ flushMs: 1000, heartbeatMs: 0, lowWatermark: 100, highWatermark: 1000 });
      hub.addRun({ id: 'run', game: 'tandem', status: 'running' });
      hub.publish('run', start('m'));
      hub.publish('run', end('m'));
      hub.flush();
      const slow = new FakeSocket();
      hub.attach(slow.asWebSocket());
      slow.bufferedAmount = 500;
      ask(slow, { type: 'match', run: 'run', matchId: 'm' });
      ask(slow, { type: 'resync' });
      ask(slow, { type: 'match', run: 'run', matchId: 'missing' });
      ask(slow, { type: 'resync' });
      hub.flush();
      expect(slow.messages.map((m) => m.type)).toEqual(['snapshot']);
      slow.bufferedAmount = 0;
      hub.flush();
      hub.close();
      expect(slow.messages.map((m) => (m.type === 'error' ? m.code : m.type))).toEqual(['snapshot', 'match', 'MATCH_UNKNOWN', 'snapshot']);
    });

    it('should drop it when it asks for more than replyCapacity replies before draining', () => {
      const hub = new BroadcastHub({ flushMs: 1000, heartbeatMs: 0, lowWatermark: 100, highWatermark: 1000, replyCapacity: 3 });
      hub.addRun({ id: 'run', game: 'tandem', status: 'running' });
      const greedy = new FakeSocket();
      hub.attach(greedy.asWebSocket());
      greedy.bufferedAmount = 500;
      for (let i = 0; i < 3; i++) ask(greedy, { type: 'match', run: 'run', matchId: 'missing' });
      expect(hub.stats.dropped).toBe(0);
      ask(greedy, { type: 'match', run: 'run', matchId: 'missing' });
      hub.close();
      expect(hub.stats.dropped).toBe(1);
      expect(greedy.messages.map((m) => m.type)).toEqual(['snapshot']);
    });
  });

  describe('having a client that asks for a large match again and again and never reads, over a real socket', () => {
    it('should drop it with no more than the watermarks queued for it', async () => {
      const server = await serve();
      const filler = 'x'.repeat(500);
      server.hub.publish('run', start('big'));
      for (let i = 0; i < 200; i++) server.hub.publish('run', token('big', i, filler));
      server.hub.publish('run', end('big'));
      server.hub.flush();
      const greedy = await spectate(server);
      await greedy.next((m) => m.type === 'snapshot');
      greedy.stopReading();
      // About 120 KB a reply: 1,000 of them would queue some 120 MB if replies went around the watermarks.
      for (let i = 0; i < 1000 && server.hub.stats.dropped === 0; i++) {
        greedy.send({ type: 'match', run: 'run', matchId: 'big' });
        if (i % 10 === 9) await new Promise((resolve) => setImmediate(resolve));
      }
      await until(() => server.hub.stats.dropped === 1, 30_000);
      expect(server.hub.stats.peakQueuedBytes).toBeLessThan(DEFAULT_HUB_OPTIONS.highWatermark);
    });
  });

  describe('having a client at the high watermark', () => {
    it('should drop it and go on sending to the others', () => {
      const hub = new BroadcastHub({ flushMs: 1000, heartbeatMs: 0, lowWatermark: 100, highWatermark: 1000 });
      hub.addRun({ id: 'run', game: 'tandem', status: 'running' });
      const stuck = new FakeSocket();
      const other = new FakeSocket();
      hub.attach(stuck.asWebSocket());
      hub.attach(other.asWebSocket());
      stuck.bufferedAmount = 5000;
      hub.publish('run', start('m'));
      hub.flush();
      hub.publish('run', end('m'));
      hub.flush();
      hub.close();
      expect(hub.stats.dropped).toBe(1);
      expect(stuck.sent).toHaveLength(1);
      expect(other.sent).toHaveLength(3);
    });
  });

  describe('having a client that stays above the low watermark', () => {
    it('should drop it once it has been behind for stallMs', () => {
      let now = 0;
      const hub = new BroadcastHub({ flushMs: 1000, heartbeatMs: 0, lowWatermark: 100, highWatermark: 1000, stallMs: 30, now: () => now });
      hub.addRun({ id: 'run', game: 'tandem', status: 'running' });
      const behind = new FakeSocket();
      hub.attach(behind.asWebSocket());
      behind.bufferedAmount = 500;
      hub.publish('run', start('m'));
      hub.flush();
      now = 30;
      hub.flush();
      expect(hub.stats.dropped).toBe(0);
      now = 31;
      hub.flush();
      hub.close();
      expect(hub.stats.dropped).toBe(1);
      expect(behind.readyState).toBe(3);
    });
  });

  describe('having a spectator that never reads, over a real socket', () => {
    it('should drop it while the others receive every event', async () => {
      // The stall clock is the test's: it moves only once the reading spectators have everything, so a loaded machine
      // that slows them down can never make one of them look stalled.
      let clock = 0;
      const server = await serve({ lowWatermark: 16 * 1024, highWatermark: 256 * 1024, backlogCapacity: 64, stallMs: 100, now: () => clock });
      const stuck = await spectate(server);
      const others = await Promise.all([spectate(server), spectate(server)]);
      await stuck.next((m) => m.type === 'snapshot');
      stuck.stopReading();
      const filler = 'x'.repeat(2000);
      let published = 0;
      for (let round = 0; round < 100_000 && server.hub.stats.dropped === 0; round++) {
        server.hub.publish('run', start(`m${round}`));
        for (let i = 0; i < 20; i++) server.hub.publish('run', token(`m${round}`, i, filler));
        server.hub.publish('run', end(`m${round}`));
        published += 22;
        server.hub.flush();
        await until(() => others.every((other) => other.events.length === published), 30_000);
        clock += 101;
        server.hub.flush();
      }
      expect(server.hub.stats.dropped).toBe(1);
      expect(stuck.events.length).toBeLessThan(published);
      server.hub.flush();
      for (const other of others) {
        await until(() => other.events.length === published);
        expect(strictlyIncreasing(seqs(other.events))).toBe(true);
      }
    });
  });

  describe("having a game view that hides a role's text from spectators", () => {
    it('should strip it from events and from snapshots', async () => {
      const hideJunior: View<string, unknown> = (state, viewer) => ({
        ...state,
        transcript: state.transcript.map((record) => (viewer === null && record.role === 'junior' ? { ...record, text: '·', tokens: [] } : record)),
      });
      const server = await serve();
      server.hub.addRun({ id: 'hidden', game: 'tandem', status: 'running', view: spectatorView(hideJunior) });
      const spectator = await spectate(server);
      server.hub.publish('hidden', start('m'));
      server.hub.publish('hidden', token('m', 0, 'seen'));
      server.hub.publish('hidden', token('m', 1, 'secret', 'junior'));
      await until(() => spectator.events.length === 3);
      expect(spectator.events[2]).toMatchObject({ type: 'tokens', authors: [], tokens: [], text: '·' });
      expect(JSON.stringify(spectator.messages)).not.toContain('secret');
      expect(JSON.stringify(server.hub.snapshot())).not.toContain('secret');
      expect(server.hub.snapshot().live[0]).toMatchObject({ spans: [{ author: 'senior', text: 'seen' }] });
    });
  });

  describe('having a page from a foreign origin', () => {
    it('should refuse the upgrade, and accept loopback and allowed origins', async () => {
      const server = await serve({}, ['https://allowed.example']);
      const foreign = new Spectator(`ws://127.0.0.1:${server.port}/ws`, { origin: 'http://evil.example' });
      spectators.push(foreign);
      await expect(foreign.opened).rejects.toThrow(/HTTP 403/);
      await spectate(server, { origin: `http://127.0.0.1:${server.port}` });
      await spectate(server, { origin: `http://localhost:${server.port}` });
      await spectate(server, { origin: 'https://allowed.example' });
      const otherPort = new Spectator(`ws://127.0.0.1:${server.port}/ws`, { origin: `http://127.0.0.1:${server.port + 1}` });
      spectators.push(otherPort);
      await expect(otherPort.opened).rejects.toThrow(/HTTP 403/);
    });
  });

  describe('having a page whose DNS name was rebound to this machine', () => {
    it('should refuse the page and the upgrade for a Host that is not localhost or an IP, and serve them to one that is', async () => {
      const server = await serve();
      const rebound = new Spectator(`ws://127.0.0.1:${server.port}/ws`, { headers: { host: `evil.example:${server.port}` } });
      spectators.push(rebound);
      await expect(rebound.opened).rejects.toThrow(/HTTP 403/);
      const page = (host: string) =>
        new Promise<number>((resolve, reject) => httpGet({ host: '127.0.0.1', port: server.port, path: '/', headers: { host } }, (r) => (r.resume(), resolve(r.statusCode ?? 0))).on('error', reject));
      expect(await page(`evil.example:${server.port}`)).toBe(403);
      expect(await page(`localhost:${server.port}`)).toBe(200);
      await spectate(server, { headers: { host: `localhost:${server.port}` } });
    });
  });

  describe('having control actions', () => {
    it("should refuse them without the run's token and carry them out with it", async () => {
      const server = await serve();
      const calls: string[] = [];
      server.hub.addRun({ id: 'ctl', game: 'tandem', status: 'running', control: { token: 'right-token', pause: () => void calls.push('pause'), resume: () => void calls.push('resume') } });
      const spectator = await spectate(server);
      const errors = () => spectator.messages.filter((m): m is Extract<ServerMessage, { type: 'error' }> => m.type === 'error').map((m) => m.code);
      spectator.send({ type: 'control', run: 'ctl', action: 'pause', token: 'wrong-token' });
      spectator.send({ type: 'control', run: 'ctl', action: 'pause', token: '' });
      spectator.send({ type: 'control', run: 'nope', action: 'pause', token: 'right-token' });
      spectator.send({ type: 'control', run: 'ctl', action: 'start-match', token: 'right-token' });
      await until(() => errors().length === 4);
      expect(errors()).toEqual(['TOKEN_REFUSED', 'TOKEN_REFUSED', 'RUN_UNKNOWN', 'ACTION_UNSUPPORTED']);
      expect(calls).toEqual([]);
      spectator.send({ type: 'control', run: 'ctl', action: 'pause', token: 'right-token' });
      await spectator.next((m) => m.type === 'control-ok');
      expect(calls).toEqual(['pause']);
      await until(() => spectator.events.some((e) => e.type === 'run-status'));
      expect(spectator.events.find((e) => e.type === 'run-status')).toMatchObject({ run: 'ctl', status: 'paused' });
    });
  });

  describe('having bad or oversized client messages', () => {
    it('should answer each with a coded error, cut frames over maxPayload, and keep serving', async () => {
      const server = await serve({ maxMessageBytes: 256 });
      const spectator = await spectate(server);
      spectator.send('not json');
      spectator.send({ type: 'control', run: 'run' });
      spectator.send({ type: 'resync', extra: 1 });
      spectator.send({ type: 'match', run: 'run', matchId: 'x'.repeat(300) });
      spectator.send({ type: 'match', run: 'run', matchId: 'missing' });
      await until(() => spectator.messages.filter((m) => m.type === 'error').length === 5);
      expect(spectator.messages.filter((m) => m.type === 'error').map((m) => m.type === 'error' && m.code)).toEqual([
        'MESSAGE_INVALID',
        'MESSAGE_INVALID',
        'MESSAGE_INVALID',
        'MESSAGE_TOO_LARGE',
        'MATCH_UNKNOWN',
      ]);
      const huge = await spectate(server);
      huge.send('x'.repeat(64 * 1024));
      expect(await huge.closed).toBe(1009);
      spectator.send({ type: 'resync' });
      await until(() => spectator.snapshots.length === 2);
    });
  });

  describe('having a socket that stops answering pings', () => {
    it('should terminate it at the next heartbeat and keep the live one', async () => {
      // Heartbeats driven by hand, each after the live socket answered the last: no timer races a loaded machine.
      const server = await serve({ heartbeatMs: 0 });
      const dead = await spectate(server, { autoPong: false });
      const live = await spectate(server);
      server.hub.beat();
      await until(() => server.hub.stats.pongs === 1, 30_000);
      expect(server.hub.stats.clients).toBe(2);
      server.hub.beat();
      await dead.closed;
      expect(server.hub.stats.deadSockets).toBe(1);
      for (let round = 2; round <= 4; round++) {
        await until(() => server.hub.stats.pongs === round, 30_000);
        server.hub.beat();
      }
      await until(() => server.hub.stats.pongs === 5, 30_000);
      expect(live.socket.readyState).toBe(live.socket.OPEN);
      expect(server.hub.stats).toMatchObject({ clients: 1, deadSockets: 1, heartbeats: 5 });
    });
  });

  describe("having a live run's finished matches", () => {
    const finish = (hub: BroadcastHub, matchId: string, text: string, correct: boolean) => {
      hub.publish('run', event({ type: 'match-start', matchId, game: 'tandem', seed: 1, seats: { senior: 'senior', junior: 'junior' }, prompt: `problem ${matchId}` }));
      hub.publish('run', token(matchId, 0, text));
      hub.publish('run', event({ type: 'verdict', matchId, role: 'senior', judge: 'grader', correct, answerPresent: true }));
      hub.publish('run', event({ type: 'match-end', matchId, outcome: { senior: correct ? 1 : 0, junior: correct ? 1 : 0 } }));
    };

    it('should answer a filtered query newest first, a page at a time, with the query echoed and the filtered total', () => {
      const hub = new BroadcastHub({ flushMs: 1000, heartbeatMs: 0 });
      hub.addRun({ id: 'run', game: 'tandem', status: 'running', headline: ['role/*/correct'] });
      for (let i = 0; i < 6; i++) finish(hub, `step-${i}/p/0/0`, i % 2 ? 'no carry here' : 'carry the one', i % 3 === 0);
      hub.flush();
      const socket = new FakeSocket();
      hub.attach(socket.asWebSocket());
      ask(socket, { type: 'matches', run: 'run', offset: 0, limit: 2, filter: { text: 'CARRY the' }, query: 7 });
      ask(socket, { type: 'matches', run: 'run', offset: 2, limit: 2, filter: { text: 'carry the' }, query: 8 });
      ask(socket, { type: 'matches', run: 'run', offset: 0, limit: 10, filter: { role: 'senior', verdict: 'wrong' } });
      ask(socket, { type: 'matches', run: 'nope', offset: 0, limit: 10 });
      ask(socket, { type: 'matches', run: 'run', offset: 0, limit: 10, filter: { outcome: 'great' } });
      hub.close();
      const [snapshot, first, second, wrong, unknown, invalid] = socket.messages;
      expect(snapshot).toMatchObject({ type: 'snapshot', runs: [{ id: 'run', headline: ['role/*/correct'] }] });
      expect(first).toMatchObject({ type: 'matches', query: 7, total: 3, offset: 0, matches: [{ matchId: 'step-4/p/0/0', step: 5, prompt: 'problem step-4/p/0/0' }, { matchId: 'step-2/p/0/0' }] });
      expect(second).toMatchObject({ type: 'matches', query: 8, total: 3, offset: 2, matches: [{ matchId: 'step-0/p/0/0', verdicts: { senior: true } }] });
      expect(wrong.type === 'matches' && wrong.matches.map((m) => m.matchId)).toEqual(['step-5/p/0/0', 'step-4/p/0/0', 'step-2/p/0/0', 'step-1/p/0/0']);
      expect(unknown).toMatchObject({ type: 'error', code: 'RUN_UNKNOWN' });
      expect(invalid).toMatchObject({ type: 'error', code: 'MESSAGE_INVALID' });
    });

    it("should keep each entrant's rating, μ and σ after every round, the latest leaderboard and payoff table, and a run's summary", () => {
      const hub = new BroadcastHub({ flushMs: 1000, heartbeatMs: 0 });
      hub.addRun({ id: 'run', game: 'agon', status: 'running', tournament: 'league' });
      const skill = (mu: number) => ({ mu, sigma: 8 - Math.abs(mu - 25) });
      for (const [round, before, after] of [[1, 25, 27], [2, 27, 28]]) {
        hub.publish('run', event({ type: 'rating-change', entrant: 'ann', before: before - 24, after: after - 24, system: 'openskill μ − 3σ', round, skill: { before: skill(before), after: skill(after) } }));
        hub.publish('run', event({ type: 'rating-change', entrant: 'bob', before: 26 - before, after: 26 - after, system: 'openskill μ − 3σ', round, skill: { before: skill(50 - before), after: skill(50 - after) } }));
        hub.publish('run', event({ type: 'payoff-table', round, table: { ann: { bob: { wins: round, draws: 0, losses: 0 } }, bob: { ann: { wins: 0, draws: 0, losses: round } } } }));
        const row = { trainable: false, draws: 0, games: round, sigma: 7 };
        hub.publish('run', event({ type: 'standings', round, rows: [{ ...row, rank: 1, entrant: 'ann', mu: after, ordinal: after - 21, wins: round, losses: 0 }, { ...row, rank: 2, entrant: 'bob', mu: 50 - after, ordinal: 29 - after, wins: 0, losses: round }] }));
      }
      const summary = { game: 'agon', steps: 3, best: { role: 'drafter', step: 2, split: 'validation', problems: 8, accuracy: { value: 0.5, se: 0.18 } } };
      hub.publish('run', event({ type: 'run-summary', summary }));
      hub.flush();
      const socket = new FakeSocket();
      hub.attach(socket.asWebSocket());
      hub.close();
      const [snapshot] = socket.messages;
      expect(snapshot).toMatchObject({
        runs: [{ id: 'run', tournament: 'league' }],
        ratings: [
          { run: 'run', entrant: 'ann', points: [{ round: 0, rating: 1, mu: 25, sigma: 8 }, { round: 1, rating: 3, mu: 27, sigma: 6 }, { round: 2, rating: 4, mu: 28, sigma: 5 }] },
          { run: 'run', entrant: 'bob', points: [{ round: 0, mu: 25 }, { round: 1, mu: 23 }, { round: 2, mu: 22 }] },
        ],
        leaderboards: { run: [{ entrant: 'ann', rank: 1, mu: 28, wins: 2 }, { entrant: 'bob', rank: 2, losses: 2 }] },
        summaries: { run: summary },
      });
      expect(snapshot.type === 'snapshot' && snapshot.payoffs).toEqual({ run: { ann: { bob: { wins: 2, draws: 0, losses: 0 } }, bob: { ann: { wins: 0, draws: 0, losses: 2 } } } });
    });
  });
});
