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

export interface CountProgress {
  update(label: string, done: number, total: number): void;
  /** Ends the last line. */
  stop(): void;
}

/**
 * Progress counted per label (`capability 40/200`): redrawn in place on a terminal, a new line per label; in a log
 * (not a TTY, where `\r` joins every redraw into one line) one line per label at every tenth of the way and at its end.
 */
export function countProgress(stream: NodeJS.WriteStream = process.stderr): CountProgress {
  let shown = '';
  let tenth = -1;
  if (!stream.isTTY) {
    return {
      update: (label, done, total) => {
        const reached = total > 0 ? Math.floor((10 * done) / total) : 10;
        if (label === shown && reached <= tenth) return;
        shown = label;
        tenth = reached;
        stream.write(`${label} ${done}/${total}\n`);
      },
      stop: () => undefined,
    };
  }
  return {
    update: (label, done, total) => {
      stream.write(`${shown && shown !== label ? '\n' : '\r'}${label} ${done}/${total}`);
      shown = label;
    },
    stop: () => {
      if (shown) stream.write('\n');
    },
  };
}
