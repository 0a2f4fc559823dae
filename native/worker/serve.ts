import type { MessagePort } from 'node:worker_threads';
import type { CallContext, FromWorker, MethodTable, ToWorker } from './protocol.ts';
import { toRemoteError, withPlainDetails } from './remote-error.ts';

/**
 * Answers calls from the main thread with `methods`. Calls run concurrently (objects serialize their own use);
 * an abort message aborts that call's signal.
 */
export function serveMethods(port: MessagePort, methods: MethodTable): void {
  const running = new Map<number, AbortController>();
  const post = (message: FromWorker) => port.postMessage(message);

  const reply = (id: number, method: string, value: unknown) => {
    try {
      post({ type: 'result', id, value });
    } catch (error) {
      post({ type: 'error', id, error: toRemoteError(new Error(`the result of ${method} cannot cross threads: ${(error as Error).message}`)) });
    }
  };
  const replyError = (id: number, error: unknown) => {
    const remote = toRemoteError(error);
    try {
      post({ type: 'error', id, error: remote });
    } catch {
      post({ type: 'error', id, error: withPlainDetails(remote) });
    }
  };

  const call = async (id: number, method: string, args: unknown[], aborted: boolean) => {
    const controller = new AbortController();
    if (aborted) controller.abort();
    running.set(id, controller);
    try {
      // The arguments come over the wire untyped; the caller's side typed them against this same table.
      const run = methods[method] as ((context: CallContext<unknown>, ...args: unknown[]) => unknown) | undefined;
      if (!run) throw new Error(`the engine worker has no method "${method}"`);
      const context = { signal: controller.signal, emit: (event: unknown) => post({ type: 'event', id, event }) };
      reply(id, method, await run(context, ...args));
    } catch (error) {
      replyError(id, error);
    } finally {
      running.delete(id);
    }
  };

  port.on('message', (message: ToWorker) => {
    if (message.type === 'call') void call(message.id, message.method, message.args, message.aborted);
    else running.get(message.id)?.abort();
  });
  post({ type: 'ready' });
}
