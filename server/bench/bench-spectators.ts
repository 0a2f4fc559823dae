// A child process of `ludus bench viewer`: N WebSocket spectators on the viewer, one of which never reads.
// It reports, when asked over IPC, what each received. Spectators count frames and take the last seq of each frame
// without parsing it all (one fully parses and checks every seq), so the measuring side stays light.
import type { Socket } from 'node:net';
import { WebSocket } from 'ws';

export interface SpectatorCounts {
  readonly frames: number;
  readonly bytes: number;
  readonly snapshots: number;
  readonly lastSeq: number;
  readonly closed: boolean;
}

export interface SpectatorsReport {
  readonly stuck: SpectatorCounts;
  readonly others: readonly SpectatorCounts[];
  /** The fully parsing spectator saw strictly increasing seq across every frame. */
  readonly increasing: boolean;
  /** CPU time of this process since every spectator was connected. */
  readonly cpuSeconds: number;
}

interface Counts {
  frames: number;
  bytes: number;
  snapshots: number;
  lastSeq: number;
  closed: boolean;
}

const [url, countText] = process.argv.slice(2);
const count = Number(countText);
const counts: Counts[] = [];
let increasing = true;
let opened = 0;
let connectedCpu = process.cpuUsage();

for (let i = 0; i < count; i++) {
  const socket = new WebSocket(url);
  const mine: Counts = { frames: 0, bytes: 0, snapshots: 0, lastSeq: -1, closed: false };
  counts.push(mine);
  const stuck = i === 0;
  const checker = i === 1;
  socket.on('open', () => {
    opened += 1;
    if (opened === count) {
      connectedCpu = process.cpuUsage();
      process.send?.({ type: 'ready' });
    }
  });
  socket.on('message', (data: Buffer) => {
    mine.frames += 1;
    mine.bytes += data.length;
    if (stuck && mine.frames === 1) (socket as unknown as { _socket: Socket })._socket.pause();
    if (checker) {
      const message = JSON.parse(data.toString()) as { type: string; seq?: number; events?: { seq: number }[] };
      if (message.type === 'snapshot') {
        mine.snapshots += 1;
        mine.lastSeq = message.seq ?? mine.lastSeq;
      } else if (message.events) {
        for (const event of message.events) {
          if (event.seq <= mine.lastSeq) increasing = false;
          mine.lastSeq = event.seq;
        }
      }
      return;
    }
    const text = data.toString('latin1', Math.max(0, data.length - 4096));
    const at = text.lastIndexOf('"seq":');
    if (at >= 0) mine.lastSeq = Math.max(mine.lastSeq, Number.parseInt(text.slice(at + 6), 10));
  });
  socket.on('close', () => {
    mine.closed = true;
  });
  socket.on('error', () => undefined);
}

process.on('message', (message: { type: string }) => {
  if (message.type !== 'report') return;
  const cpu = process.cpuUsage(connectedCpu);
  const report: SpectatorsReport = { stuck: counts[0], others: counts.slice(1), increasing, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
  process.send?.({ type: 'report', report });
});
