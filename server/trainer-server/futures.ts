import { LudusError, fail } from '../../core/errors.ts';
import type { FutureAnswer } from '../../engine/remote/trainer-wire.ts';

/** How long and how much the trainer API keeps of its finished answers; each a default of ours. */
export interface FutureLimits {
  /** Answers waiting to be retrieved, in bytes at most: past it the oldest are dropped (the newest is kept until retrieved). */
  readonly maxKeptBytes: number;
  /** An answer not retrieved within this long of finishing is dropped. */
  readonly unretrievedMs: number;
  /** A retrieved answer of at most `smallBytes` is kept this long, so a retry of a retrieval whose reply was lost still finds it; a larger one goes at once. */
  readonly retrievedMs: number;
  readonly smallBytes: number;
  /** Ids of dropped answers remembered (so a resubmission runs nothing and a retrieval says why), at most. */
  readonly rememberedIds: number;
}

export const FUTURE_LIMITS: FutureLimits = { maxKeptBytes: 256 * 2 ** 20, unretrievedMs: 120_000, retrievedMs: 30_000, smallBytes: 64 * 2 ** 10, rememberedIds: 65_536 };

interface Entry {
  state: FutureAnswer;
  settled: Promise<void>;
  readonly queue: string | undefined;
  /** The answer's size as kept (0 while pending). */
  bytes: number;
  /** When it finished, and when it was first retrieved. */
  finishedAt?: number;
  retrievedAt?: number;
}

/**
 * The trainer API's futures: each submitted call runs once under its request id (a resubmission is the same call),
 * calls sharing a queue (a model) one after another in submission order, and its answer is retrieved by id, the
 * retrieval waiting a while for a call still running. A failed call's answer carries its error code; a failure that
 * is not a LudusError names no internals (it is logged).
 *
 * Answers are kept only until retrieved (a small one a little longer, for retries), for a short time when never
 * retrieved, and within a byte bound; a model's are dropped when it is unloaded. Whatever computes the answers (a
 * learner in this process or a worker behind a channel), only their JSON-sized results are held here.
 */
export class Futures {
  private readonly entries = new Map<string, Entry>();
  private readonly queues = new Map<string, Promise<void>>();
  /** Dropped ids and why, oldest first. */
  private readonly dropped = new Map<string, string>();
  private keptBytes = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly limits: FutureLimits = FUTURE_LIMITS) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(100, Math.min(limits.retrievedMs, limits.unretrievedMs) / 4));
    this.sweeper.unref();
  }

  /** Whether `requestId` was already submitted (its answer may since have been dropped). */
  has(requestId: string): boolean {
    return this.entries.has(requestId) || this.dropped.has(requestId);
  }

  /** Bytes of finished answers held now. */
  get heldBytes(): number {
    return this.keptBytes;
  }

  /** Runs `run` as the call `requestId` (behind the earlier calls of `queue`); false when that id was already submitted, and nothing runs. */
  submit(requestId: string, queue: string | undefined, run: () => Promise<unknown>): boolean {
    if (this.has(requestId)) return false;
    const previous = (queue !== undefined ? this.queues.get(queue) : undefined) ?? Promise.resolve();
    const entry: Entry = { state: { status: 'pending' }, settled: previous, queue, bytes: 0 };
    entry.settled = previous.then(run).then(
      (result) => this.finish(requestId, entry, { status: 'done', result }),
      (error: unknown) => this.finish(requestId, entry, { status: 'failed', error: describe(error) }),
    );
    if (queue !== undefined) this.queues.set(queue, entry.settled);
    this.entries.set(requestId, entry);
    return true;
  }

  /** The call's answer once it has one, or `pending` after `waitMs`. */
  async retrieve(requestId: string, waitMs: number): Promise<FutureAnswer> {
    const entry = this.entries.get(requestId) ?? this.gone(requestId);
    if (entry.state.status === 'pending' && waitMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([entry.settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      clearTimeout(timer);
    }
    const state = entry.state;
    if (state.status !== 'pending' && this.entries.get(requestId) === entry) {
      entry.retrievedAt ??= Date.now();
      if (entry.bytes > this.limits.smallBytes) this.drop(requestId, 'its answer was retrieved already (large answers are kept until then only)');
    }
    return state;
  }

  /** Waits for every call submitted so far. */
  async drain(): Promise<void> {
    await Promise.all([...this.entries.values()].map((entry) => entry.settled));
  }

  /** Waits for the calls of `queue`, then drops all their answers and the queue itself (a model unloaded). */
  async forget(queue: string): Promise<void> {
    await this.queues.get(queue);
    for (const [id, entry] of [...this.entries]) if (entry.queue === queue) this.drop(id, 'its model was unloaded');
    this.queues.delete(queue);
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private finish(requestId: string, entry: Entry, state: FutureAnswer): void {
    entry.state = state;
    entry.finishedAt = Date.now();
    entry.bytes = approximateBytes(state);
    if (this.entries.get(requestId) !== entry) return;
    this.keptBytes += entry.bytes;
    this.keepWithinBytes(requestId);
  }

  /** Drops finished answers, retrieved ones first then the oldest, until the kept bytes are within the bound; `keep` is spared. */
  private keepWithinBytes(keep: string): void {
    for (const retrievedOnly of [true, false]) {
      for (const [id, entry] of [...this.entries]) {
        if (this.keptBytes <= this.limits.maxKeptBytes) return;
        if (id === keep || entry.finishedAt === undefined || (retrievedOnly && entry.retrievedAt === undefined)) continue;
        this.drop(id, `its answer was dropped to keep this server's finished answers within ${this.limits.maxKeptBytes} bytes; retrieve answers as they finish`);
      }
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, entry] of [...this.entries]) {
      if (entry.retrievedAt !== undefined && now - entry.retrievedAt >= this.limits.retrievedMs) this.drop(id, 'its answer was retrieved already');
      else if (entry.retrievedAt === undefined && entry.finishedAt !== undefined && now - entry.finishedAt >= this.limits.unretrievedMs) {
        this.drop(id, `its answer was not retrieved within ${this.limits.unretrievedMs / 1000} s of finishing`);
      }
    }
  }

  private drop(id: string, why: string): void {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    this.entries.delete(id);
    this.keptBytes -= entry.bytes;
    this.dropped.set(id, why);
    for (const old of this.dropped.keys()) {
      if (this.dropped.size <= this.limits.rememberedIds) break;
      this.dropped.delete(old);
    }
  }

  private gone(requestId: string): never {
    const why = this.dropped.get(requestId);
    if (why !== undefined) return fail('REQUEST_INVALID', `request_id "${requestId}": ${why}`, { field: 'request_id' });
    return fail('REQUEST_INVALID', `no call with request_id "${requestId}" was submitted here (or its answer is long gone)`, { field: 'request_id' });
  }
}

/** About how many bytes an answer holds: its strings' lengths (base64 weights dominate) and 8 per number. */
function approximateBytes(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object' || value === null) return 8;
  let sum = 0;
  for (const item of Object.values(value)) sum += approximateBytes(item);
  return sum;
}

function describe(error: unknown): { code: string; message: string } {
  if (LudusError.is(error)) return { code: error.code, message: error.message };
  process.stderr.write(`serve-trainer: ${(error as Error).stack ?? String(error)}\n`);
  return { code: 'ENGINE_RUN_FAILED', message: 'internal error (see the server log)' };
}
