import { Option, type Command } from 'commander';
import { mebibytes } from '../server/request-guard.ts';
import { positiveNumberArg, wholeNumberArg } from './options.ts';
import { exposureWarning, serverToken, TOKEN_ENV, type ServerToken } from '../server/server-token.ts';

/** The flags every ludus model server shares: its token, what it may read, who may call it, and how much at once. */
export interface AccessFlags {
  token?: string;
  allowDir: string[];
  allowHost: string[];
  allowOrigin: string[];
  maxBodyMb?: number;
  maxInFlight?: number;
  log?: string;
}

const repeatable = (value: string, all: string[]) => [...all, value];

/** Adds the shared flags; `defaults` are the server's own limits (shown in --help). */
export function accessOptions(command: Command, defaults: { readonly maxBodyBytes: number; readonly maxInFlight: number }, reads: string): Command {
  return command
    .addOption(
      new Option(
        '--token <token>',
        `the token every request must send as "Authorization: Bearer <token>" (default: $${TOKEN_ENV}, else a random one printed once at start). A token on the command line is visible to every local user in ps: prefer $${TOKEN_ENV}`,
      ),
    )
    .option('--allow-dir <dir>', `a directory ${reads} may be read from (repeatable; symlinks are resolved before the check)`, repeatable, [])
    .option('--allow-host <name>', 'a host name requests may address this server by, besides localhost and IP addresses (repeatable)', repeatable, [])
    .option('--allow-origin <origin>', 'a browser origin allowed to call this server (repeatable; none by default)', repeatable, [])
    .option('--max-body-mb <n>', `request bodies larger than this are refused (default ${defaults.maxBodyBytes / 2 ** 20})`, positiveNumberArg('max-body-mb'))
    .option('--max-in-flight <n>', `requests handled at once, counted once their bodies are in; more get 503 (default ${defaults.maxInFlight})`, wholeNumberArg('max-in-flight'))
    .option('--log <file>', 'append the access log (a JSON line per request that changes state: route, model, caller address, status; never the token) to this file instead of stderr');
}

/**
 * The server options the flags give: `server` to spread into a server's options, `limits` into its limits (the
 * server's defaults where a flag is absent), and the token with where it came from.
 */
export function accessSettings(flags: AccessFlags, defaults: { readonly maxBodyBytes: number; readonly maxInFlight: number }) {
  const token = serverToken(flags.token);
  return {
    token,
    server: { token: token.token, allowDirs: flags.allowDir, allowHosts: flags.allowHost, allowOrigins: flags.allowOrigin, ...(flags.log !== undefined ? { log: flags.log } : {}) },
    limits: { maxBodyBytes: flags.maxBodyMb !== undefined ? mebibytes(flags.maxBodyMb) : defaults.maxBodyBytes, maxInFlight: flags.maxInFlight ?? defaults.maxInFlight },
  };
}

/**
 * What a server prints once it listens: one JSON line on stdout for a parent process (with the token when it was
 * generated here: the one place it is shown, so a log capturing both streams holds it once), and on stderr the
 * warning of a server reachable past loopback.
 */
export function announce(what: string, host: string, token: ServerToken, line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ ...line, ...(token.generated ? { token: token.token } : {}) })}\n`);
  const warning = exposureWarning(what, host);
  if (warning) process.stderr.write(`warning: ${warning}\n`);
  process.stderr.write(
    token.generated
      ? `${what}: the token is the "token" of the line on stdout (every request sends it as "Authorization: Bearer <token>"; ludus's clients read it from $${TOKEN_ENV})\n`
      : `${what}: requests must send the token given by ${TOKEN_ENV} or --token\n`,
  );
}
