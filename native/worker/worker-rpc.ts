import { Worker, type Transferable } from 'node:worker_threads';
import { LudusError } from '../../core/errors.ts';
import type { ArgsOf, EventOf, FromWorker, MethodTable, ResultOf, ToWorker } from './protocol.ts';
import { reviveError } from './remote-error.ts';

export interface CallOptions<Event> {
  signal?: AbortSignal;
  onEvent?: (event: Event) => void;
  /** Buffers moved to the worker instead of copied; the caller's views of them become empty. */
  transfer?: readonly Transferable[];
}

const BOOTSTRAP = new URL('./typescript-worker.js', import.meta.url);

interface Pending {
  method: string;
  callerStack: string;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  onEvent?: (event: unknown) => void;
  detach(): void;
}

export interface SpawnOptions {
  /** Handed to the module's `start`; structured-cloned. */
  data?: unknown;
  /** Names the worker in errors. */
  label: string;
}

/**
 * Main-thread end of a worker serving a method table `T` (see serve.ts): typed calls, streamed events, abort. If the
 * worker dies, every pending and later call rejects with WORKER_FAILED. The worker keeps the process alive only
 * while calls are pending.
 */
export class WorkerRpc<T extends MethodTable> {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private failure: LudusError | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly label: string,
  ) {
    worker.on('message', (message: FromWorker) => this.receive(message));
    worker.on('error', (error) => this.die(`${label} crashed: ${error.message}`, { cause: error.name, errorCode: (error as { code?: string }).code }));
    worker.on('exit', (exitCode) => this.die(`${label} exited with code ${exitCode}`, { exitCode }));
    worker.unref();
  }

  /**
   * Starts a worker thread running the TypeScript `module`, whose exported `start(data)` must call serveMethods. The
   * thread loads it through a JavaScript bootstrap that registers tsx, so this works under the CLI and under vitest.
   */
  static spawn<T extends MethodTable>(module: URL, options: SpawnOptions): Promise<WorkerRpc<T>> {
    const worker = new Worker(BOOTSTRAP, { workerData: { module: module.href, data: options.data } });
    return new Promise((resolve, reject) => {
      const failed = (why: string) => reject(new LudusError('WORKER_FAILED', `${options.label} failed to start: ${why}`));
      const onError = (error: Error) => failed(error.message);
      const onExit = (code: number) => failed(`exited with code ${code}`);
      worker.once('error', onError);
      worker.once('exit', onExit);
      worker.once('message', (message: FromWorker) => {
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (message.type === 'ready') resolve(new WorkerRpc<T>(worker, options.label));
        else failed(`sent ${message.type} before ready`);
      });
    });
  }

  call<K extends keyof T & string>(method: K, args: ArgsOf<T[K]>, options: CallOptions<EventOf<T[K]>> = {}): Promise<ResultOf<T[K]>> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    const callerStack = new Error().stack ?? '';
    return new Promise((resolve, reject) => {
      const abort = () => this.post({ type: 'abort', id });
      options.signal?.addEventListener('abort', abort, { once: true });
      this.pending.set(id, {
        method,
        callerStack,
        resolve: resolve as (value: unknown) => void,
        reject,
        onEvent: options.onEvent as ((event: unknown) => void) | undefined,
        detach: () => options.signal?.removeEventListener('abort', abort),
      });
      this.worker.ref();
      try {
        const call: ToWorker = { type: 'call', id, method, args, aborted: options.signal?.aborted ?? false };
        this.worker.postMessage(call, options.transfer as Transferable[] | undefined);
      } catch (error) {
        this.settle(id)?.reject(new LudusError('INPUT_INVALID', `arguments of ${method} cannot cross to the ${this.label}: ${(error as Error).message}`, { method }));
      }
    });
  }

  /** Why the worker can take no more calls, once it cannot. */
  get failed(): LudusError | null {
    return this.failure;
  }

  /** Asks the worker to abort every call still pending; each settles as its method handles the abort. */
  abortPending(): void {
    for (const id of this.pending.keys()) this.post({ type: 'abort', id });
  }

  /** Stops the worker; calls still pending reject with WORKER_FAILED. */
  async terminate(): Promise<void> {
    this.die(`${this.label} was closed`, {});
    await this.worker.terminate();
  }

  private receive(message: FromWorker): void {
    if (message.type === 'event') {
      this.deliver(message.id, message.event);
    } else if (message.type === 'result') {
      this.settle(message.id)?.resolve(message.value);
    } else if (message.type === 'error') {
      const call = this.settle(message.id);
      call?.reject(reviveError(message.error, call.method, call.callerStack));
    }
  }

  /** A listener that throws fails its call, as it would in-process, and stops the worker's side of it. */
  private deliver(id: number, event: unknown): void {
    try {
      this.pending.get(id)?.onEvent?.(event);
    } catch (error) {
      this.post({ type: 'abort', id });
      const call = this.settle(id);
      call?.reject(error);
    }
  }

  private settle(id: number): Pending | undefined {
    const call = this.pending.get(id);
    if (!call) return undefined;
    this.pending.delete(id);
    call.detach();
    if (this.pending.size === 0) this.worker.unref();
    return call;
  }

  private post(message: ToWorker): void {
    if (!this.failure) this.worker.postMessage(message);
  }

  private die(message: string, details: Record<string, unknown>): void {
    this.failure ??= new LudusError('WORKER_FAILED', message, details);
    for (const id of [...this.pending.keys()]) {
      const call = this.settle(id);
      call?.reject(new LudusError('WORKER_FAILED', `${call.method}: ${this.failure.message}`, { ...this.failure.details, method: call.method }));
    }
  }
}
