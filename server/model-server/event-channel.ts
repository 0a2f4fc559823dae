/** Events pushed as they happen and read once, in order, by one consumer: a streamed answer's body. */
export class EventChannel<T> implements AsyncIterable<T> {
  private readonly queued: T[] = [];
  private wake: (() => void) | undefined;
  private closed = false;
  private failure: { readonly error: unknown } | undefined;

  push(event: T): void {
    this.queued.push(event);
    this.wake?.();
  }

  /** Ends the stream after the events queued, or fails it with `error` there. */
  close(error?: unknown): void {
    this.closed = true;
    if (error !== undefined) this.failure = { error };
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.queued.length > 0) {
        yield this.queued.shift()!;
        continue;
      }
      if (this.closed) {
        if (this.failure) throw this.failure.error;
        return;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
