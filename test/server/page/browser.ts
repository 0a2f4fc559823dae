import { spawn, type ChildProcess } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';
import { LUDUS_BIN } from '../../support/cli.ts';

export const CHROMIUM = '/usr/bin/chromium';
/** Headless, nothing fetched in the background, software rendering: pixels the same on every machine. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--headless', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-gpu'];

/** Debian's Chromium, headless. No fallback: a machine without it fails here (.ci/run installs it). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export interface ServingLudus {
  readonly url: string;
  readonly token?: string;
  readonly child: ChildProcess;
  stderr(): string;
  stdout(): string;
  /** The exit code, once it exits on its own. */
  readonly exited: Promise<number | null>;
  /** SIGINT, then the exit code. */
  stop(): Promise<number | null>;
}

/** Runs a ludus command that starts the viewer (with --port 0) and resolves once it prints where to watch. */
export function serveLudus(args: string[], timeoutMs = 60_000, cwd?: string): Promise<ServingLudus> {
  const child = spawn(process.execPath, [LUDUS_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd });
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`ludus ${args.join(' ')} printed no URL in ${timeoutMs} ms:\n${stderr}`)), timeoutMs);
    child.once('exit', (code) => reject(new Error(`ludus ${args.join(' ')} exited ${code} before printing a URL:\n${stderr}`)));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /watch: (http:\S+)/.exec(stderr)?.[1];
      if (!url) return;
      clearTimeout(timer);
      resolve({
        url,
        token: /control token for run \S+: (\S+)/.exec(stderr)?.[1],
        child,
        stderr: () => stderr,
        stdout: () => stdout,
        exited,
        stop: () => {
          child.kill('SIGINT');
          return exited;
        },
      });
    });
  });
}
