import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fail, LudusError, type LudusErrorCode } from '../../core/errors.ts';
import { packageRoot } from '../io/package-root.ts';

/** Where the worker's Python sources are: beside this module's sources, shipped in the package as they are. */
export const WORKER_SCRIPT = join(packageRoot(import.meta.url), 'native', 'torch', 'python', 'ludus_worker.py');

/** Debian's python3-torch is for the system interpreter; LUDUS_PYTHON or --python overrides it. */
export const defaultPython = (): string => process.env.LUDUS_PYTHON ?? '/usr/bin/python3';

export type TorchDevice = 'auto' | 'cpu' | 'cuda';
export type TorchStrategy = 'ddp' | 'fsdp';

export interface TorchWorkerOptions {
  /** The interpreter that runs the worker (one with torch >= 1.13). */
  readonly python?: string;
  /** Processes started on this machine with torchrun (`python -m torch.distributed.run`); 1 starts the worker alone. */
  readonly processes?: number;
  readonly device?: TorchDevice;
  readonly strategy?: TorchStrategy;
  /** torch.set_num_threads of each process (0: torch chooses). */
  readonly threads?: number;
  /** Where the worker's log goes (its stderr): the door's own stderr unless given. */
  readonly log?: (line: string) => void;
}

/** What the worker says of itself once connected. */
export interface WorkerInfo {
  readonly torch: string;
  readonly python: string;
  readonly world: number;
  readonly device: string;
  readonly strategy: TorchStrategy;
  readonly pid: number;
  readonly cuda: boolean;
}

export type BlobDtype = 'f32' | 'i32';
/** A tensor on the channel: name, dims, dtype, and its raw little-endian bytes. */
export interface ChannelTensor {
  readonly name: string;
  readonly dims: readonly number[];
  readonly data: Float32Array | Int32Array;
}

export interface Reply {
  readonly header: Record<string, unknown>;
  readonly tensors: Map<string, { dims: number[]; data: Float32Array }>;
}

const MAX_HEADER_BYTES = 64 * 1024 * 1024;

/**
 * The door's end of one PyTorch worker (native/torch/python): the process it started (alone or under torchrun), or a
 * worker started by the operator (`attach`, for several nodes), reached over a Unix socket that only its user can
 * open. Requests go one at a time; each is a JSON header with tensors as raw bytes. A worker that exits, or a
 * connection that drops, fails the request in flight and every later one with REMOTE_UNAVAILABLE.
 */
export class TorchWorker {
  private queue: Promise<unknown> = Promise.resolve();
  private gone: LudusError | undefined;
  private pending: ((error: LudusError) => void) | undefined;
  private buffered: Buffer = Buffer.alloc(0);
  /** The reader of the answer awaited: takes what has arrived of it from `buffered`. */
  private wanted: (() => void) | undefined;

  private described: WorkerInfo | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly child: ChildProcess | undefined,
    private readonly cleanup: () => Promise<void>,
  ) {
    this.watch();
  }

  /** The worker connected at `socket`, once it has said what it is. */
  private static async opened(socket: Socket, child: ChildProcess | undefined, cleanup: () => Promise<void>): Promise<TorchWorker> {
    const worker = new TorchWorker(socket, child, cleanup);
    worker.described = (await worker.request('hello')).header as unknown as WorkerInfo;
    return worker;
  }

  get info(): WorkerInfo {
    return this.described ?? fail('INTERNAL', 'the torch worker was used before it said hello (a defect of ludus)');
  }

  /** Starts a worker on this machine and connects to it; TORCH_UNAVAILABLE when the interpreter has no torch, or one too old. */
  static async start(options: TorchWorkerOptions = {}): Promise<TorchWorker> {
    const dir = await mkdtemp(join(tmpdir(), 'ludus-torch-'));
    const socketPath = join(dir, 'worker.sock');
    const python = options.python ?? defaultPython();
    const processes = options.processes ?? 1;
    const workerArgs = [WORKER_SCRIPT, '--socket', socketPath, '--device', options.device ?? 'auto', '--strategy', options.strategy ?? 'ddp', '--threads', String(options.threads ?? 0)];
    // torchrun on one node: a static rendezvous on a free loopback port (two servers on a machine never meet), the
    // workers' stderr teed into the door's log ("2": Debian's torch 1.13 under Python 3.11 cannot parse "0" or "3").
    const launch = ['-m', 'torch.distributed.run', '--nnodes', '1', '--nproc_per_node', String(processes), '--master_addr', '127.0.0.1', '--master_port', String(await freePort()), '--redirects', '2', '--tee', '2', '--log_dir', join(dir, 'logs')];
    const args = processes > 1 ? [...launch, ...workerArgs] : workerArgs;
    const log = options.log ?? ((line: string) => process.stderr.write(`torch worker: ${line}\n`));
    let child: ChildProcess;
    try {
      child = spawn(python, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' } });
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
    createInterface({ input: child.stderr! }).on('line', log);
    const cleanup = () => rm(dir, { recursive: true, force: true });
    try {
      await ready(child, python);
      return await TorchWorker.opened(await connected(socketPath), child, cleanup);
    } catch (error) {
      child.kill('SIGKILL');
      await cleanup();
      throw error;
    }
  }

  /** Connects to a worker the operator started (under torchrun, on one node or several) listening at `socketPath`. */
  static async attach(socketPath: string): Promise<TorchWorker> {
    return TorchWorker.opened(await connected(socketPath), undefined, async () => undefined);
  }

  /** Sends one request and waits for its answer; a refusal raises its code, a lost worker REMOTE_UNAVAILABLE. */
  request(op: string, header: Record<string, unknown> = {}, tensors: readonly ChannelTensor[] = []): Promise<Reply> {
    const run = this.queue.catch(() => undefined).then(() => this.exchange(op, header, tensors));
    this.queue = run;
    return run;
  }

  /** Whether the worker is still there. */
  get alive(): boolean {
    return this.gone === undefined;
  }

  async close(): Promise<void> {
    if (this.gone === undefined) {
      await this.request('shutdown').catch(() => undefined);
      this.gone = new LudusError('REMOTE_UNAVAILABLE', 'the torch worker was closed');
    }
    this.socket.destroy();
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise<void>((resolve) => this.child!.once('exit', () => resolve()));
      const timer = setTimeout(() => this.child!.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    await this.cleanup();
  }

  private watch(): void {
    const lost = (why: string) => {
      if (this.gone) return;
      const pid = this.described?.pid ?? this.child?.pid;
      this.gone = new LudusError('REMOTE_UNAVAILABLE', `the torch worker (pid ${pid}) ${why}; nothing of the call in flight was kept, and its models are gone: resume the run from its checkpoint`, { pid });
      this.pending?.(this.gone);
    };
    this.child?.once('exit', (code, signal) => lost(signal ? `was killed by ${signal}` : `exited with code ${code}`));
    this.socket.on('close', () => lost('closed its connection'));
    this.socket.on('error', (error) => lost(`failed on its connection (${error.message})`));
    this.socket.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
      this.wanted?.();
    });
  }

  private async exchange(op: string, header: Record<string, unknown>, tensors: readonly ChannelTensor[]): Promise<Reply> {
    if (this.gone) throw this.gone;
    const blobs = tensors.map((t) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    const text = Buffer.from(JSON.stringify({ ...header, op, tensors: tensors.map((t) => [t.name, [...t.dims], t.data instanceof Int32Array ? 'i32' : 'f32']), blobs: blobs.map((b) => b.length) }));
    const answer = this.read();
    this.socket.write(Buffer.concat([lengthPrefix(text.length), text]));
    for (const blob of blobs) this.socket.write(blob);
    const { reply, parts } = await answer;
    const error = reply.error as { code?: string; message?: string } | undefined;
    if (error) throw new LudusError((error.code ?? 'ENGINE_RUN_FAILED') as LudusErrorCode, `torch worker, ${op}: ${error.message ?? 'failed'}`, { op });
    const out = new Map<string, { dims: number[]; data: Float32Array }>();
    ((reply.tensors as [string, number[], string][] | undefined) ?? []).forEach(([name, dims], i) => {
      const bytes = parts[i];
      const data = new Float32Array(bytes.length / 4);
      new Uint8Array(data.buffer).set(bytes);
      out.set(name, { dims, data });
    });
    return { header: reply, tensors: out };
  }

  /** The next message: its header, then each blob it announces. */
  private read(): Promise<{ reply: Record<string, unknown>; parts: Buffer[] }> {
    return new Promise((resolve, reject) => {
      let reply: Record<string, unknown> | undefined;
      let sizes: number[] = [];
      const parts: Buffer[] = [];
      const take = (n: number): Buffer | undefined => {
        if (this.buffered.length < n) return undefined;
        const out = this.buffered.subarray(0, n);
        this.buffered = this.buffered.subarray(n);
        return out;
      };
      const finish = (error?: LudusError) => {
        this.wanted = undefined;
        this.pending = undefined;
        if (error) reject(error);
        else resolve({ reply: reply!, parts });
      };
      this.pending = (error) => finish(error);
      this.wanted = (): void => {
        if (reply === undefined) {
          if (this.buffered.length < 4) return;
          const length = this.buffered.readUInt32LE(0);
          if (length > MAX_HEADER_BYTES) return finish(new LudusError('REMOTE_RESPONSE_INVALID', `the torch worker sent a header of ${length} bytes`));
          if (this.buffered.length < 4 + length) return;
          take(4);
          reply = JSON.parse(take(length)!.toString('utf8')) as Record<string, unknown>;
          sizes = (reply.blobs as number[] | undefined) ?? [];
        }
        while (parts.length < sizes.length) {
          const part = take(sizes[parts.length]);
          if (part === undefined) return;
          parts.push(Buffer.from(part));
        }
        finish();
      };
      if (this.gone) finish(this.gone);
      else this.wanted();
    });
  }
}

function lengthPrefix(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n, 0);
  return b;
}

/** The first line the worker prints: ready, or a coded refusal (no torch, too old, no such device). */
function ready(child: ChildProcess, python: string): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(new LudusError('TORCH_UNAVAILABLE', `cannot start ${python} (${error.code ?? error.message}): install Python 3 with torch >= 1.13 (Debian: apt-get install python3-torch), or name an interpreter with --python`, { python })),
    );
    child.once('exit', (code, signal) => reject(new LudusError('TORCH_UNAVAILABLE', `the torch worker (${python}) exited before it was ready (${signal ?? `code ${code}`}); its log is above`, { python })));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      let parsed: { ready?: boolean; error?: { code: string; message: string } };
      try {
        parsed = JSON.parse(line) as typeof parsed;
      } catch {
        reject(new LudusError('TORCH_UNAVAILABLE', `the torch worker (${python}) did not start as expected`, { python }));
        return;
      }
      if (parsed.error) reject(new LudusError(parsed.error.code as LudusErrorCode, parsed.error.message, { python }));
      else resolve();
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function connected(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => reject(new LudusError('REMOTE_UNAVAILABLE', `no torch worker listens at ${path} (${error.code ?? error.message})`, { socket: path })));
  });
}
