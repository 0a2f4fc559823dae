import { spawn } from 'node:child_process';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createInterface } from 'node:readline';
import { LUDUS_BIN } from './cli.ts';
import { authorized } from './server-token.ts';

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  json: { error?: { code: string; message: string } } & Record<string, unknown>;
}

/** One raw HTTP request, every header as given (fetch would set Host and refuse some headers itself), on a fresh connection. */
export function raw(url: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: target.hostname, port: target.port, method, path, agent: false, headers: { ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, json: text.trim().startsWith('{') ? JSON.parse(text) : {} }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** Headers with the tests' token and a JSON content type. */
export const JSON_HEADERS = authorized({ 'content-type': 'application/json' });

/** POSTs `body` (JSON-encoded unless a string) with the token. */
export const post = (url: string, path: string, body: unknown, headers: Record<string, string> = JSON_HEADERS): Promise<RawAnswer> =>
  raw(url, 'POST', path, headers, typeof body === 'string' ? body : JSON.stringify(body));

/** `ludus <command> ...` as a child process until it prints its first stdout line (the server's JSON announcement). */
export function spawned(args: string[], env: Record<string, string | undefined> = {}) {
  const child = spawn(process.execPath, [LUDUS_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LUDUS_TOKEN: undefined, ...env } });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const line = new Promise<Record<string, string>>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    createInterface({ input: child.stdout }).once('line', (text) => resolve(JSON.parse(text) as Record<string, string>));
  });
  return {
    child,
    line,
    stderr: () => stderr,
    stdout: () => stdout,
    stop: (signal: NodeJS.Signals = 'SIGTERM') => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill(signal)))),
  };
}
