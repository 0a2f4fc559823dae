import { LudusError, fail } from '../../core/errors.ts';
import type { FutureAnswer } from '../../engine/remote/trainer-wire.ts';

interface Entry {
  state: FutureAnswer;
  settled: Promise<void>;
}

/** Finished results kept for retrieval (and retries of their submissions), oldest dropped first (ours). */
const KEPT = 4096;

/**
 * The trainer API's futures: each submitted call runs once under its request id (a resubmission is the same call),
 * calls sharing a queue (a model) one after another in submission order, and its answer is retrieved by id, the
 * retrieval waiting a while for a call still running. A failed call's answer carries its error code; a failure that
 * is not a LudusError names no internals (it is logged).
 */
export class Futures {
  private readonly entries = new Map<string, Entry>();
  private readonly queues = new Map<string, Promise<void>>();

  /** Whether `requestId` was already submitted. */
  has(requestId: string): boolean {
    return this.entries.has(requestId);
  }

  submit(requestId: string, queue: string | undefined, run: () => Promise<unknown>): void {
    if (this.entries.has(requestId)) return;
    const previous = (queue !== undefined ? this.queues.get(queue) : undefined) ?? Promise.resolve();
    const entry: Entry = { state: { status: 'pending' }, settled: previous };
    entry.settled = previous.then(run).then(
      (result) => void (entry.state = { status: 'done', result }),
      (error: unknown) => void (entry.state = { status: 'failed', error: describe(error) }),
    );
    if (queue !== undefined) this.queues.set(queue, entry.settled);
    this.entries.set(requestId, entry);
    this.evict();
  }

  /** The call's answer once it has one, or `pending` after `waitMs`. */
  async retrieve(requestId: string, waitMs: number): Promise<FutureAnswer> {
    const entry = this.entries.get(requestId) ?? fail('REQUEST_INVALID', `no call with request_id "${requestId}" was submitted here (or its answer is long gone)`, { field: 'request_id' });
    if (entry.state.status === 'pending' && waitMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([entry.settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      clearTimeout(timer);
    }
    return entry.state;
  }

  /** Waits for every call submitted so far. */
  async drain(): Promise<void> {
    await Promise.all([...this.entries.values()].map((entry) => entry.settled));
  }

  private evict(): void {
    for (const [id, entry] of this.entries) {
      if (this.entries.size <= KEPT) return;
      if (entry.state.status !== 'pending') this.entries.delete(id);
    }
  }
}

function describe(error: unknown): { code: string; message: string } {
  if (LudusError.is(error)) return { code: error.code, message: error.message };
  process.stderr.write(`serve-trainer: ${(error as Error).stack ?? String(error)}\n`);
  return { code: 'ENGINE_RUN_FAILED', message: 'internal error (see the server log)' };
}
