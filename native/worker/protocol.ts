import type { RemoteError } from './remote-error.ts';

/** What a worker-side method gets besides its arguments: the call's abort signal and a channel for streamed events. */
export interface CallContext<Event = never> {
  readonly signal: AbortSignal;
  emit(event: Event): void;
}

/** Any worker method: `never` parameters admit every concrete signature, and every concrete table keeps its precise types. */
export type Method = (context: CallContext<never>, ...args: never[]) => unknown;

export type MethodTable = Record<string, Method>;

/** What the caller passes: a method's parameters after its context. */
export type ArgsOf<M> = M extends (context: never, ...args: infer A) => unknown ? A : never;
export type ResultOf<M> = M extends (...args: never[]) => infer R ? Awaited<R> : never;
/** What a method streams back through `context.emit`. */
export type EventOf<M> = M extends (context: CallContext<infer E>, ...args: never[]) => unknown ? E : never;

export type ToWorker =
  /** `aborted`: the caller's signal had fired before the call was sent, so the method starts aborted. */
  | { type: 'call'; id: number; method: string; args: unknown[]; aborted: boolean }
  | { type: 'abort'; id: number };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'error'; id: number; error: RemoteError }
  | { type: 'event'; id: number; event: unknown };
