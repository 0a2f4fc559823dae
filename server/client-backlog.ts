import type { WireEvent } from './wire.ts';

/**
 * Events held for one client whose socket is above the low watermark, with token events coalesced: a tokens event
 * joins the previous one of its match when nothing else of that match came between, and moves to the end so the
 * order of `seq` holds. Bounded: past `capacity` entries it gives up and the client needs a fresh snapshot.
 */
export class ClientBacklog {
  private readonly entries = new Map<number, WireEvent>();
  private readonly lastOfMatch = new Map<string, number>();
  overflowed = false;

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  add(events: readonly WireEvent[]): void {
    if (this.overflowed) return;
    for (const event of events) this.addOne(event);
    if (this.entries.size > this.capacity) {
      this.clear();
      this.overflowed = true;
    }
  }

  /** The held events in order of `seq`, emptied. */
  take(): WireEvent[] {
    const events = [...this.entries.values()];
    this.clear();
    return events;
  }

  clear(): void {
    this.entries.clear();
    this.lastOfMatch.clear();
    this.overflowed = false;
  }

  private addOne(event: WireEvent): void {
    if (!('matchId' in event)) {
      this.entries.set(event.seq, event);
      return;
    }
    const match = `${event.run}\u0000${event.matchId}`;
    const previousSeq = this.lastOfMatch.get(match);
    const previous = previousSeq === undefined ? undefined : this.entries.get(previousSeq);
    this.lastOfMatch.set(match, event.seq);
    if (event.type === 'tokens' && previous?.type === 'tokens' && previous.turn === event.turn && previous.position + previous.tokens.length === event.position) {
      this.entries.delete(previous.seq);
      this.entries.set(event.seq, {
        ...event,
        position: previous.position,
        tokens: [...previous.tokens, ...event.tokens],
        authors: [...previous.authors, ...event.authors],
        text: (previous.text ?? '') + (event.text ?? ''),
      });
      return;
    }
    this.entries.set(event.seq, event);
  }
}
