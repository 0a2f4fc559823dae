import cliProgress from 'cli-progress';

/** Where a long command stands: its current phase, and how far along it is in its own unit (steps, rollouts). */
export interface Progress {
  phase: string;
  done: number;
  total: number;
  /** Shown beside the bar (a loss, a learning rate); not a new phase. */
  detail?: string;
}

export interface ProgressReporter {
  update(progress: Progress): void;
  stop(): void;
}

/**
 * Progress on stderr: a bar on a terminal; in a log (stderr not a TTY, where a redrawn bar is noise) one line when
 * the phase changes and one at every tenth of the way.
 */
export function progressReporter(name: string, stream: NodeJS.WriteStream = process.stderr): ProgressReporter {
  const percent = (done: number, total: number) => (total > 0 ? Math.floor((100 * done) / total) : 100);
  if (!stream.isTTY) {
    let phase: string | undefined;
    let tenth = -1;
    let last: Progress | undefined;
    const line = (progress: Progress) =>
      stream.write(`${name}: ${progress.phase} (overall ${percent(progress.done, progress.total)}%${progress.detail ? `, ${progress.detail}` : ''})\n`);
    return {
      update: (progress) => {
        last = progress;
        const reached = Math.floor(percent(progress.done, progress.total) / 10);
        if (progress.phase === phase && reached <= tenth) return;
        phase = progress.phase;
        tenth = reached;
        line(progress);
      },
      stop: () => {
        if (last) line({ ...last, phase: 'done' });
      },
    };
  }
  const bar = new cliProgress.SingleBar({ format: `${name} |{bar}| {percentage}%  {phase}  eta {eta_formatted}`, stream, etaBuffer: 50 }, cliProgress.Presets.shades_classic);
  let started = false;
  return {
    update: ({ phase, done, total, detail }) => {
      const shown = detail ? `${phase}  ${detail}` : phase;
      if (!started) bar.start(total, done, { phase: shown });
      started = true;
      bar.setTotal(total);
      bar.update(done, { phase: shown });
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}
