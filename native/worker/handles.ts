import { fail } from '../../core/errors.ts';

/** Names an object living in the engine worker; plain data, so it crosses threads as is. */
export interface Handle<Kind extends string> {
  readonly kind: Kind;
  readonly id: number;
}

interface Entry<T> {
  value: T;
  queue: Promise<unknown>;
}

/**
 * The worker's objects of one kind, by handle. Every use of an object waits for the previous one to finish: one
 * queue per object, so two calls never race on a decoder's caches or a learner's weights.
 */
export class Registry<Kind extends string, T> {
  private nextId = 1;
  private readonly entries = new Map<number, Entry<T>>();

  constructor(readonly kind: Kind) {}

  add(value: T): Handle<Kind> {
    const id = this.nextId++;
    this.entries.set(id, { value, queue: Promise.resolve() });
    return { kind: this.kind, id };
  }

  use<R>(handle: Handle<Kind>, work: (value: T) => R | Promise<R>): Promise<R> {
    let entry: Entry<T>;
    try {
      entry = this.entry(handle);
    } catch (error) {
      return Promise.reject(error);
    }
    const run = entry.queue.then(() => work(this.entry(handle).value));
    entry.queue = run.catch(() => undefined);
    return run;
  }

  /** Removes the object once its queued work is done, then disposes of it. */
  async remove(handle: Handle<Kind>, dispose: (value: T) => Promise<void>): Promise<void> {
    await this.use(handle, async (value) => {
      this.entries.delete(handle.id);
      await dispose(value);
    });
  }

  handles(): Handle<Kind>[] {
    return [...this.entries.keys()].map((id) => ({ kind: this.kind, id }));
  }

  private entry(handle: Handle<Kind>): Entry<T> {
    const entry = handle.kind === this.kind ? this.entries.get(handle.id) : undefined;
    if (!entry) fail('INPUT_INVALID', `no ${this.kind} with handle ${handle.id} in the engine worker (released, or from another client?)`, { kind: handle.kind, id: handle.id });
    return entry;
  }
}
