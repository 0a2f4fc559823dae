import { isIP } from 'node:net';
import { fail } from '../core/errors.ts';
import { newControlToken } from './control-token.ts';

/** The environment variable a server reads its token from, and ludus's clients send theirs from. */
export const TOKEN_ENV = 'LUDUS_TOKEN';

/** Shorter tokens are refused: a guessable token is no door. */
const MIN_TOKEN_LENGTH = 16;

export interface ServerToken {
  readonly token: string;
  /** Made at start (to be printed), rather than given by --token or LUDUS_TOKEN. */
  readonly generated: boolean;
}

/** The token a server requires: --token, else $LUDUS_TOKEN, else a fresh random one (as Jupyter does). */
export function serverToken(flag: string | undefined, env: string | undefined = process.env[TOKEN_ENV]): ServerToken {
  const given = flag ?? (env === '' ? undefined : env);
  if (given === undefined) return { token: newControlToken(), generated: true };
  if (given.length < MIN_TOKEN_LENGTH || /\s/.test(given)) {
    fail('INPUT_INVALID', `${flag !== undefined ? '--token' : TOKEN_ENV}: a token needs at least ${MIN_TOKEN_LENGTH} characters and no spaces (leave it unset and one is generated)`, { flag: 'token' });
  }
  return { token: given, generated: false };
}

/** Whether an interface is this machine's loopback only (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (name === 'localhost' || name === '::1') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/** What a server bound past loopback says at start: who can now reach it, and that the token is all that stands between. */
export function exposureWarning(what: string, host: string): string | undefined {
  if (isLoopback(host)) return undefined;
  return `${what}: listening on ${host}, reachable from other machines: anyone who has the token can load models and change weights, and the token and every request cross the network in clear text (plain HTTP); bind to 127.0.0.1 and reach it through an SSH tunnel, or put a TLS proxy in front`;
}
