import { createWriteStream, type WriteStream } from 'node:fs';

/** One state-changing request as the access log records it: never a header, so never the token. */
export interface AccessEntry {
  /** "METHOD /path". */
  readonly route: string;
  /** The model the request named (its model_id, lora_name, base_model or model_path), when its body was read. */
  readonly model?: string;
  /** The caller's address as the connection shows it. */
  readonly address: string;
  readonly status: number;
}

/** Longest model name a line keeps (a request's own text, so bounded). */
const MAX_MODEL_CHARS = 200;

/** The body fields that name a request's model, in the order they are looked for. */
const MODEL_FIELDS = ['model_id', 'lora_name', 'base_model', 'model_path', 'model'] as const;

/**
 * Where a server records who changed what: one JSON line per state-changing request (loading or unloading an
 * adapter, replacing weights, creating, stepping, saving or unloading a trained model), refused ones included, on
 * stderr or appended to a file (`--log FILE`). Each line is one JSON object, so a request's own text cannot forge
 * another line.
 */
export class AccessLog {
  private constructor(
    private readonly server: string,
    private readonly file: WriteStream | undefined,
  ) {}

  /** Lines to `file` (appended; created when missing), else to stderr. */
  static open(server: string, file?: string): AccessLog {
    return new AccessLog(server, file === undefined ? undefined : createWriteStream(file, { flags: 'a', mode: 0o600 }));
  }

  record(entry: AccessEntry): void {
    const line = `${JSON.stringify({ time: new Date().toISOString(), server: this.server, ...entry })}\n`;
    if (this.file) this.file.write(line);
    else process.stderr.write(line);
  }

  async close(): Promise<void> {
    const file = this.file;
    if (file) await new Promise<void>((resolve) => file.end(resolve));
  }
}

/** The model a request body names, for its access line (bounded, as it is the caller's text). */
export function modelNamed(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  for (const field of MODEL_FIELDS) {
    const value = (body as Record<string, unknown>)[field];
    if (typeof value === 'string') return value.slice(0, MAX_MODEL_CHARS);
  }
  return undefined;
}
