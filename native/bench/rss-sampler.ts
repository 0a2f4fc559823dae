/** Peak resident memory, sampled every 100 ms until `stop` (a bench's memory figure). */
export interface RssSampler {
  /** Forget the peak so far: the next `peak` covers what follows. */
  reset(): void;
  peak(): number;
  stop(): void;
}

/**
 * Starts sampling. The timer is unref'd, so a bench that fails before `stop` still lets the process exit (a
 * referenced interval kept `ludus bench` alive forever after an error); callers stop it in a `finally` all the same.
 */
export function sampleRss(intervalMs = 100): RssSampler {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), intervalMs);
  timer.unref();
  return {
    reset: () => void (peak = process.memoryUsage().rss),
    peak: () => Math.max(peak, process.memoryUsage().rss),
    stop: () => clearInterval(timer),
  };
}
