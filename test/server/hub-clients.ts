import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { WebSocket, type ClientOptions } from 'ws';
import type { ServerMessage, Snapshot, WireEvent } from '../../server/wire.ts';

/** A spectator over a real loopback socket that records every message it reads. */
export class Spectator {
  readonly messages: ServerMessage[] = [];
  readonly socket: WebSocket;
  readonly opened: Promise<void>;
  readonly closed: Promise<number>;

  constructor(url: string, options: ClientOptions = {}) {
    this.socket = new WebSocket(url, options);
    this.socket.on('message', (data) => this.messages.push(JSON.parse(String(data)) as ServerMessage));
    this.socket.on('error', () => undefined);
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
      this.socket.once('error', reject);
    });
    this.closed = new Promise((resolve) => this.socket.once('close', (code) => resolve(code)));
  }

  get events(): WireEvent[] {
    return this.messages.flatMap((message) => (message.type === 'events' ? message.events : []));
  }

  get snapshots(): Snapshot[] {
    return this.messages.filter((message): message is Snapshot => message.type === 'snapshot');
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Stops reading from the socket, as a client that never reads: the server's queue for it fills. */
  stopReading(): void {
    (this.socket as unknown as { _socket: Socket })._socket.pause();
  }

  async next(predicate: (message: ServerMessage) => boolean, timeoutMs = 5000): Promise<ServerMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no such message within ${timeoutMs} ms; got ${this.messages.map((m) => m.type).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  close(): void {
    this.socket.terminate();
  }
}

/** A socket whose queued bytes a test sets by hand, to drive the hub's watermarks exactly. */
export class FakeSocket extends EventEmitter {
  readonly sent: string[] = [];
  /** What was handed to send, as given: a shared frame is the very same object for every socket. */
  readonly buffers: (string | Buffer)[] = [];
  bufferedAmount = 0;
  readyState: number = WebSocket.OPEN;

  send(data: string | Buffer): void {
    this.buffers.push(data);
    this.sent.push(data.toString());
  }

  ping(): void {}

  terminate(): void {
    this.readyState = WebSocket.CLOSED;
    this.emit('close', 1006);
  }

  get messages(): ServerMessage[] {
    return this.sent.map((text) => JSON.parse(text) as ServerMessage);
  }

  asWebSocket(): WebSocket {
    return this as unknown as WebSocket;
  }
}

export async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
