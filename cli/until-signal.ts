/**
 * Resolves at the first SIGINT or SIGTERM. A server's command calls it before it says where it listens: a client that
 * reads the address and at once sends a signal then stops the server cleanly (its temporary files removed), where a
 * handler installed after the announcement could be too late and the signal's default action would kill it.
 */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}
