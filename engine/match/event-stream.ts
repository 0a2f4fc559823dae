import { sequencer, type LudusEmitter, type LudusEvent, type UnsequencedEvent } from '../../core/events.ts';

/** Numbers events and emits each under its own type and under `event`. */
export class EventStream {
  private readonly stamp: (event: UnsequencedEvent) => LudusEvent;
  private sent: number;

  constructor(
    private readonly emitter: LudusEmitter | undefined,
    start = 0,
  ) {
    this.stamp = sequencer(start);
    this.sent = start;
  }

  /** The `seq` the next event gets: a resumed run continues from it. */
  get nextSeq(): number {
    return this.sent;
  }

  /** Whether anyone can receive events: publishers skip fine-grained streaming when not. */
  get live(): boolean {
    return this.emitter !== undefined;
  }

  publish(event: UnsequencedEvent): void {
    const stamped = this.stamp(event);
    this.sent += 1;
    if (!this.emitter) return;
    (this.emitter.emit as (type: string, event: LudusEvent) => boolean)(stamped.type, stamped);
    this.emitter.emit('event', stamped);
  }
}
