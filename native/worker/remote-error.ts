import { LudusError, type LudusErrorCode } from '../../core/errors.ts';

/** An error as it crosses the thread boundary: plain data that structured clone keeps intact. */
export interface RemoteError {
  name: string;
  message: string;
  stack?: string;
  code?: LudusErrorCode;
  details?: Record<string, unknown>;
}

export function toRemoteError(error: unknown): RemoteError {
  if (error instanceof LudusError) return { name: error.name, message: error.message, stack: error.stack, code: error.code, details: { ...error.details } };
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { name: 'Error', message: String(error) };
}

/** The same error with details reduced to what JSON can carry, for when structured clone refuses them. */
export function withPlainDetails(error: RemoteError): RemoteError {
  if (!error.details) return error;
  let details: Record<string, unknown>;
  try {
    details = JSON.parse(JSON.stringify(error.details)) as Record<string, unknown>;
  } catch {
    details = { unserializable: Object.keys(error.details) };
  }
  return { ...error, details };
}

/**
 * A coded error comes back as a LudusError with the same code, message and details; anything else (a bug in the
 * worker) as WORKER_FAILED. The stack is the worker's, followed by where the call was made.
 */
export function reviveError(remote: RemoteError, method: string, callerStack = ''): LudusError {
  let error: LudusError;
  if (remote.code) {
    error = new LudusError(remote.code, '', remote.details ?? {});
    error.message = remote.message;
  } else {
    error = new LudusError('WORKER_FAILED', `engine worker: ${method} threw ${remote.name}: ${remote.message}`, { method, cause: remote.name });
  }
  const callerFrames = callerStack.split('\n').slice(1).join('\n');
  error.stack = `${remote.stack ?? `${error.name}: ${error.message}`}\n    --- in the engine worker, called from ---\n${callerFrames}`;
  return error;
}
