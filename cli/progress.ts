import cliProgress from 'cli-progress';
import type { MetricsLine } from '../engine/trainer/metrics-line.ts';
import { formatDuration } from './run-summary.ts';

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

export interface StepReporter {
  /** The run is under way at step `from` of `total`: said at once, before the first step ends. */
  begin(total: number, from: number): void;
  step(line: MetricsLine, total: number, checkpointed: boolean): void;
  warn(text: string): void;
  stop(): void;
}

/**
 * A bar on a terminal; anywhere else (CI logs, `tee`) one plain line per step, as it ends. Both say at once that the
 * first step is under way, give an ETA from the steps this process has timed (none before the first ends), and say
 * what follows the last step (the comparison with the start on held-out problems) while it runs.
 */
export function stepReporter(gameName: string, trainable: readonly string[], finalProblems: number, stream: NodeJS.WriteStream = process.stderr): StepReporter {
  const status = (line: MetricsLine) => {
    const rewards = Object.entries(line.roles)
      .filter(([role]) => trainable.includes(role))
      .map(([role, metrics]) => `${role} reward ${metrics.reward_mean.toFixed(3)}`);
    const losses = Object.entries(line.policies).map(([policy, metrics]) => `${policy} loss ${metrics.loss === null ? 'skipped' : metrics.loss.toFixed(4)}`);
    return [...rewards, ...losses].join('  ');
  };
  const timed: number[] = [];
  const eta = (done: number, total: number) => {
    if (timed.length === 0) return 'eta after the first step';
    const seconds = (timed.reduce((a, b) => a + b, 0) / timed.length) * (total - done);
    return `eta ${formatDuration(seconds)}${finalProblems > 0 ? ' + the final comparison' : ''}`;
  };
  const after = (line: MetricsLine, total: number) =>
    line.step === total && finalProblems > 0 ? `comparing the trained policies with their start on ${finalProblems} held-out problems…` : undefined;
  if (!stream.isTTY) {
    return {
      // Not the `step N/M` of a finished step's line, which logs and scripts look for.
      begin: (total, from) => void stream.write(`train ${gameName}: step ${from + 1} of ${total} under way\n`),
      step: (line, total, checkpointed) => {
        timed.push(line.seconds);
        stream.write(`train ${gameName} step ${line.step}/${total}  ${status(line)}  ${line.seconds.toFixed(1)} s${checkpointed ? '  checkpointed' : ''}${line.step < total ? `  ${eta(line.step, total)}` : ''}\n`);
        const next = after(line, total);
        if (next) stream.write(`${next}\n`);
      },
      warn: (text) => void stream.write(text),
      stop: () => undefined,
    };
  }
  const bar = new cliProgress.SingleBar({ format: `train ${gameName} |{bar}| {value}/{total} steps  {status}  {eta}`, stream }, cliProgress.Presets.shades_classic);
  let started = false;
  return {
    begin: (total, from) => {
      bar.start(total, from, { status: `step ${from + 1} under way`, eta: eta(from, total) });
      started = true;
    },
    step: (line, total) => {
      timed.push(line.seconds);
      if (!started) bar.start(total, line.step - 1, { status: '', eta: '' });
      started = true;
      bar.update(line.step, { status: after(line, total) ?? status(line), eta: line.step < total ? eta(line.step, total) : '' });
    },
    warn: (text) => void stream.write(`\n${text}`),
    stop: () => {
      if (started) bar.stop();
    },
  };
}
