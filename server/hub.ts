import { match } from 'ts-pattern';
import { WebSocket, type RawData } from 'ws';
import type { LudusEvent } from '../core/events.ts';
import { ClientBacklog } from './client-backlog.ts';
import { tokensMatch } from './control-token.ts';
import type { EventView } from './spectator-view.ts';
import { DEFAULT_WATCH_LIMITS, WatchState, type MatchArchive, type WatchStateLimits } from './watch-state.ts';
import { ClientMessageSchema, wireError, type ClientMessage, type ControlAction, type MetricsPoint, type RunInfo, type RunStatus, type ServerMessage, type WireErrorCode, type WireEvent } from './wire.ts';

export interface HubOptions {
  /** Events are gathered this long and sent as one frame, serialized once for every client. */
  readonly flushMs: number;
  /** Above this many bytes queued on a socket, its events are held and token events coalesced. */
  readonly lowWatermark: number;
  /** At or above this many bytes queued, the client is dropped: the engine never waits for a viewer. */
  readonly highWatermark: number;
  /** Events held for one slow client before it is given a fresh snapshot instead. */
  readonly backlogCapacity: number;
  /** Replies (a match's events, errors) held for a client above the low watermark; one more and it is dropped. */
  readonly replyCapacity: number;
  /** A client whose socket stays above the low watermark this long is not reading: it is dropped. */
  readonly stallMs: number;
  /** Ping every this many ms; a socket that has not answered the previous ping is terminated. 0: no heartbeat. */
  readonly heartbeatMs: number;
  /** Larger client messages are refused with MESSAGE_TOO_LARGE (the transport cuts far larger ones). */
  readonly maxMessageBytes: number;
  readonly limits: WatchStateLimits;
  /** The clock stall times are measured on (milliseconds). */
  readonly now: () => number;
}

export const DEFAULT_HUB_OPTIONS: HubOptions = {
  flushMs: 50,
  lowWatermark: 64 * 1024,
  highWatermark: 1024 * 1024,
  backlogCapacity: 4096,
  replyCapacity: 16,
  stallMs: 10_000,
  heartbeatMs: 15_000,
  maxMessageBytes: 1024,
  limits: DEFAULT_WATCH_LIMITS,
  now: () => performance.now(),
};

/** What a run lets a holder of its token do. */
export interface RunControl {
  readonly token: string;
  readonly pause?: () => void;
  readonly resume?: () => void;
  readonly startMatch?: () => void | Promise<void>;
}

export interface HubRun {
  readonly id: string;
  readonly game: string;
  readonly status: RunStatus;
  /** Every event of the run passes through it before it is kept or sent (the game's view, viewer null). */
  readonly view?: EventView;
  readonly control?: RunControl;
  /** The curves its viewer draws first (the game's headline). */
  readonly headline?: readonly string[];
  /** The tournament it is a game of (its runs share one leaderboard). */
  readonly tournament?: string;
}

export interface HubStats {
  clients: number;
  /** Frames of events serialized once and shared by every client that was keeping up. */
  sharedSerializations: number;
  /** Frames serialized for one client: its coalesced backlog. */
  clientSerializations: number;
  framesSent: number;
  resynced: number;
  dropped: number;
  deadSockets: number;
  events: number;
  /** Heartbeat rounds run (every `heartbeatMs`). */
  heartbeats: number;
  /** Pongs received: answers to the heartbeat's pings. */
  pongs: number;
  /** The most bytes ever queued on one socket, just after a write: what a slow client can make the server hold. */
  peakQueuedBytes: number;
}

interface Client {
  readonly socket: WebSocket;
  readonly backlog: ClientBacklog;
  /** Replies it asked for while its socket was above the low watermark, sent in order once it drains. */
  readonly replies: (string | Buffer)[];
  /** It asked for a snapshot while behind: a fresh one goes out once it drains. */
  wantsSnapshot: boolean;
  alive: boolean;
  /** Since when (options.now()) its socket has been above the low watermark; undefined while below. */
  behindSince: number | undefined;
}

/**
 * The broadcast hub: numbers every event of every run (`seq`, strictly increasing), passes it through its run's
 * view, keeps the bounded state snapshots are made from, and sends batches to spectators without ever waiting on
 * one: events for a client above the low watermark are held with token events coalesced, a client whose held events
 * overflowed gets a fresh snapshot once it drains, and one at the high watermark, or above the low one for
 * `stallMs`, is dropped. Replies to requests go the same way: held (at most `replyCapacity`) while the client is
 * behind, so a client that asks without reading cannot make the server queue more than the watermarks allow.
 */
export class BroadcastHub {
  readonly stats: HubStats = { clients: 0, sharedSerializations: 0, clientSerializations: 0, framesSent: 0, resynced: 0, dropped: 0, deadSockets: 0, events: 0, heartbeats: 0, pongs: 0, peakQueuedBytes: 0 };
  private readonly options: HubOptions;
  private readonly state: WatchState;
  private readonly runs = new Map<string, HubRun>();
  private readonly clients = new Set<Client>();
  private pending: WireEvent[] = [];
  private nextSeq = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout | undefined;
  private snapshotCache: { seq: number; version: number; text: Buffer } | undefined;
  private runsVersion = 0;

  constructor(options: Partial<HubOptions> = {}) {
    this.options = { ...DEFAULT_HUB_OPTIONS, ...options };
    this.state = new WatchState(this.options.limits);
    if (this.options.heartbeatMs > 0) {
      this.heartbeat = setInterval(() => this.beat(), this.options.heartbeatMs);
      this.heartbeat.unref();
    }
  }

  addRun(run: HubRun, recorded?: { archive: MatchArchive; metrics: readonly MetricsPoint[] }): void {
    this.runs.set(run.id, run);
    this.state.setRun(this.runInfo(run, run.status), recorded && viewedArchive(recorded.archive, run.view));
    if (recorded) this.state.addMetrics(run.id, recorded.metrics);
    this.runsVersion += 1;
  }

  setStatus(runId: string, status: RunStatus): void {
    this.queue({ type: 'run-status', status, run: runId, seq: this.nextSeq++ });
  }

  /** Takes one engine event for `run`; returns at once, whatever the clients are doing. */
  publish(runId: string, event: LudusEvent): void {
    const run = this.runs.get(runId);
    const seen = run?.view ? run.view(event) : event;
    this.queue({ ...seen, run: runId, seq: this.nextSeq++ } as WireEvent);
  }

  /** A new spectator: a snapshot now, then every batch. */
  attach(socket: WebSocket): void {
    const client: Client = { socket, backlog: new ClientBacklog(this.options.backlogCapacity), replies: [], wantsSnapshot: false, alive: true, behindSince: undefined };
    this.clients.add(client);
    this.stats.clients = this.clients.size;
    socket.on('pong', () => {
      this.stats.pongs += 1;
      client.alive = true;
    });
    socket.on('message', (data, isBinary) => this.receive(client, data, isBinary));
    socket.on('error', () => socket.terminate());
    socket.on('close', () => {
      this.clients.delete(client);
      this.stats.clients = this.clients.size;
    });
    this.sendSnapshot(client);
  }

  /** Sends what is pending now (it is otherwise sent every `flushMs`). */
  flush(): void {
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    for (const event of batch) this.state.apply(event);
    let shared: Buffer | undefined;
    for (const client of this.clients) {
      const { socket, backlog } = client;
      if (socket.readyState !== WebSocket.OPEN) continue;
      while (client.replies.length > 0 && this.keepsUp(client)) this.sendText(client, client.replies.shift()!);
      if (!this.keepsUp(client)) {
        if (batch.length > 0) backlog.add(batch);
        continue;
      }
      if (backlog.overflowed || client.wantsSnapshot) {
        if (backlog.overflowed) this.stats.resynced += 1;
        backlog.clear();
        client.wantsSnapshot = false;
        this.sendSnapshot(client);
      } else if (backlog.size > 0) {
        backlog.add(batch);
        this.stats.clientSerializations += 1;
        this.sendText(client, JSON.stringify({ type: 'events', events: backlog.take() } satisfies ServerMessage));
      } else if (batch.length > 0) {
        if (shared === undefined) {
          shared = Buffer.from(JSON.stringify({ type: 'events', events: batch } satisfies ServerMessage));
          this.stats.sharedSerializations += 1;
        }
        this.sendText(client, shared);
      }
    }
    if ([...this.clients].some((client) => client.behindSince !== undefined || client.backlog.size > 0 || client.backlog.overflowed || client.replies.length > 0 || client.wantsSnapshot)) {
      this.schedule();
    }
  }

  /**
   * Whether `client` may be written to now: below the low watermark. Above it, its stall clock runs and it is
   * dropped once that exceeds `stallMs`, or at once at the high watermark.
   */
  private keepsUp(client: Client): boolean {
    if (!this.clients.has(client)) return false;
    const queued = client.socket.bufferedAmount;
    if (queued >= this.options.highWatermark) {
      this.drop(client);
      return false;
    }
    if (queued < this.options.lowWatermark) {
      client.behindSince = undefined;
      return true;
    }
    const now = this.options.now();
    client.behindSince ??= now;
    if (now - client.behindSince > this.options.stallMs) this.drop(client);
    return false;
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const client of this.clients) client.socket.terminate();
    this.clients.clear();
  }

  /** The state a new client would be sent now (after the pending events are flushed). */
  snapshot(): ReturnType<WatchState['snapshot']> {
    return this.state.snapshot();
  }

  private queue(event: WireEvent): void {
    this.pending.push(event);
    this.stats.events += 1;
    this.schedule();
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => this.flush(), this.options.flushMs);
  }

  private sendSnapshot(client: Client): void {
    const seq = this.state.seq;
    if (this.snapshotCache?.seq !== seq || this.snapshotCache.version !== this.runsVersion) {
      this.snapshotCache = { seq, version: this.runsVersion, text: Buffer.from(JSON.stringify(this.state.snapshot())) };
    }
    this.sendText(client, this.snapshotCache.text);
  }

  /** Text frames; a shared frame is one Buffer written to every socket as it is (no per-client copy). */
  private sendText(client: Client, text: string | Buffer): void {
    this.stats.framesSent += 1;
    client.socket.send(text, { binary: false });
    this.stats.peakQueuedBytes = Math.max(this.stats.peakQueuedBytes, client.socket.bufferedAmount);
  }

  /** A reply to the client's request: sent now while it keeps up, else held until it drains (within replyCapacity). */
  private reply(client: Client, message: ServerMessage): void {
    if (client.socket.readyState !== WebSocket.OPEN) return;
    const text = JSON.stringify(message);
    if (client.replies.length === 0 && this.keepsUp(client)) return this.sendText(client, text);
    if (!this.clients.has(client)) return;
    if (client.replies.length >= this.options.replyCapacity) return this.drop(client);
    client.replies.push(text);
    this.schedule();
  }

  /** A snapshot the client asked for: now while it keeps up, else a fresh one once it drains. */
  private resync(client: Client): void {
    if (client.replies.length === 0 && this.keepsUp(client)) return this.sendSnapshot(client);
    client.wantsSnapshot = this.clients.has(client);
    this.schedule();
  }

  private refuse(client: Client, code: WireErrorCode, detail?: string): void {
    this.reply(client, wireError(code, detail));
  }

  private drop(client: Client): void {
    this.stats.dropped += 1;
    this.clients.delete(client);
    this.stats.clients = this.clients.size;
    client.socket.terminate();
  }

  /**
   * One heartbeat round (run every `heartbeatMs`; callable to drive the heartbeat by hand, heartbeatMs 0): a socket
   * that has not answered the previous round's ping is terminated, every other one is pinged.
   */
  beat(): void {
    this.stats.heartbeats += 1;
    for (const client of this.clients) {
      if (!client.alive) {
        this.stats.deadSockets += 1;
        this.clients.delete(client);
        client.socket.terminate();
        continue;
      }
      client.alive = false;
      if (client.socket.readyState === WebSocket.OPEN) client.socket.ping();
    }
    this.stats.clients = this.clients.size;
  }

  private receive(client: Client, data: RawData, isBinary: boolean): void {
    const size = Array.isArray(data) ? data.reduce((sum, part) => sum + part.length, 0) : data.byteLength;
    if (size > this.options.maxMessageBytes) return this.refuse(client, 'MESSAGE_TOO_LARGE', `${size} bytes, at most ${this.options.maxMessageBytes}`);
    if (isBinary) return this.refuse(client, 'MESSAGE_INVALID', 'binary frames are not accepted');
    let message: ClientMessage;
    try {
      const parsed = ClientMessageSchema.safeParse(JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8')));
      if (!parsed.success) return this.refuse(client, 'MESSAGE_INVALID', parsed.error.issues[0]?.message);
      message = parsed.data;
    } catch {
      return this.refuse(client, 'MESSAGE_INVALID', 'not JSON');
    }
    match(message)
      .with({ type: 'resync' }, () => this.resync(client))
      .with({ type: 'matches' }, ({ run, offset, limit, filter, query }) => {
        const page = this.state.matchPage(run, offset, limit, filter, query);
        if (!page) return this.refuse(client, 'RUN_UNKNOWN', run);
        this.reply(client, page);
      })
      .with({ type: 'match' }, ({ run, matchId }) => {
        const events = this.state.matchEvents(run, matchId);
        if (!events) return this.refuse(client, 'MATCH_UNKNOWN', `${run} ${matchId}`);
        this.reply(client, { type: 'match', run, matchId, events });
      })
      .with({ type: 'control' }, ({ run, action, token }) => void this.control(client, run, action, token))
      .exhaustive();
  }

  private async control(client: Client, runId: string, action: ControlAction, token: string): Promise<void> {
    const run = this.runs.get(runId);
    if (!run) return this.refuse(client, 'RUN_UNKNOWN', runId);
    if (!run.control || !tokensMatch(run.control.token, token)) return this.refuse(client, 'TOKEN_REFUSED');
    const handler = { pause: run.control.pause, resume: run.control.resume, 'start-match': run.control.startMatch }[action];
    if (!handler) return this.refuse(client, 'ACTION_UNSUPPORTED', `${runId} does not ${action}`);
    try {
      await handler();
    } catch (error) {
      return this.refuse(client, 'CONTROL_FAILED', error instanceof Error ? error.message : String(error));
    }
    if (action === 'pause' || action === 'resume') this.setStatus(runId, action === 'pause' ? 'paused' : 'running');
    this.reply(client, { type: 'control-ok', run: runId, action });
  }

  private runInfo(run: HubRun, status: RunStatus): RunInfo {
    const control = run.control;
    const actions: ControlAction[] = control ? (['pause', 'resume', 'start-match'] as const).filter((action) => ({ pause: control.pause, resume: control.resume, 'start-match': control.startMatch })[action] !== undefined) : [];
    return { id: run.id, game: run.game, status, actions, ...(run.headline ? { headline: run.headline } : {}), ...(run.tournament ? { tournament: run.tournament } : {}) };
  }
}

/** A recorded run's matches pass the run's view on their way out, as live ones did on their way in. */
function viewedArchive(archive: MatchArchive, view: EventView | undefined): MatchArchive {
  if (!view) return archive;
  const viewed = (events: readonly WireEvent[] | undefined) => events?.map((event) => (event.type === 'run-status' ? event : ({ ...view(event), run: event.run }) as WireEvent));
  return { summaries: () => archive.summaries(), events: (matchId) => viewed(archive.events(matchId)), digest: (matchId) => viewed(archive.digest(matchId)) };
}
