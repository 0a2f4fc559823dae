import { sampleRss } from '../../native/bench/rss-sampler.ts';
import { execFileSync, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { AnyGame } from '../../core/catalog.ts';
import type { LudusEmitter } from '../../core/events.ts';
import { siblingModule } from '../../native/io/package-root.ts';
import type { MetricsLine } from '../../engine/trainer/metrics-line.ts';
import type { TrainConfig } from '../../engine/trainer/train-config.ts';
import type { SpectatorsReport } from '../../server/bench/bench-spectators.ts';
import type { HubStats } from '../../server/hub.ts';
import { liveRun } from '../../server/live-run.ts';
import { spectatorView } from '../../server/spectator-view.ts';
import { startViewerServer } from '../../server/viewer-server.ts';
import { trainInWorker } from '../training/train-in-worker.ts';
import { fail } from '../../core/errors.ts';

export interface ViewerBenchOptions {
  readonly game: AnyGame;
  readonly config: TrainConfig;
  readonly spectators: number;
  /** Runs without and with spectators, interleaved. */
  readonly rounds: number;
  readonly threads: number;
  readonly onProgress?: (label: string) => void;
}

export interface ViewerBenchRun {
  readonly tokensPerSecond: number;
  readonly tokens: number;
  readonly seconds: number;
  /** Peak RSS of this process (engine and, when watched, server) while training, sampled every 100 ms. */
  readonly peakRssMb: number;
  /** Wall time of the whole run, start-up included. */
  readonly wallSeconds: number;
  /** CPU time of this process over the run: the engine's worker thread and onnxruntime's threads, and the main thread. */
  readonly processCpuSeconds: number;
  /**
   * CPU time of the main thread: the viewer server, and the relay of the worker's events and step lines to it. The
   * engine runs in a worker thread, as under `ludus train`. Read from /proc (Linux); elsewhere the event loop's busy
   * time, which also counts time the thread waited for a core.
   */
  readonly mainThreadCpuSeconds: number;
}

export interface WatchedBenchRun extends ViewerBenchRun {
  readonly rssMb: { readonly before: number; readonly connected: number; readonly after: number };
  readonly heapUsedMb: { readonly before: number; readonly after: number };
  readonly hub: HubStats;
  readonly lastSeq: number;
  /** Spectators the server dropped or found dead: the one that never reads, and no other. */
  readonly serverDropped: number;
  readonly clientsAtEnd: number;
  /** Spectators (of the others) that received every event, up to the last seq. */
  readonly othersUpToDate: number;
  readonly othersClosed: number;
  readonly increasing: boolean;
  /** Mean bytes each of the others received. */
  readonly othersMeanMb: number;
  readonly stuckMb: number;
  /** CPU time of the spectators' process (at a low priority, so it mostly yields the cores to the engine). */
  readonly spectatorsCpuSeconds: number;
}

export interface ViewerBenchReport {
  readonly workload: { game: string; steps: number; matchesPerStep: number; maxNewTokens: number; spectators: number; rounds: number };
  readonly without: readonly ViewerBenchRun[];
  readonly with: readonly WatchedBenchRun[];
  readonly tokensPerSecond: { readonly without: number; readonly with: number };
  /** with / without, of the means. */
  readonly ratio: number;
  /** The server's own cost: main-thread CPU with the viewer minus without, over the watched runs' wall time (of one core). */
  readonly serverShare: number;
  /** The spectators' CPU time over the watched runs' wall time (they stand in for browsers on other machines). */
  readonly spectatorsShare: number;
  /** The machine's load average (1 min) before the bench and after it, and its cores. */
  readonly machine: { readonly cores: number; readonly loadBefore: number; readonly loadAfter: number };
}

const SPECTATORS_SCRIPT = fileURLToPath(siblingModule(import.meta.url, '../../server/bench/bench-spectators'));
const SPECTATORS_NICENESS = 10;
const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

/**
 * The engine's throughput with and without spectators: the same short training run (same seed, same matches) in a
 * worker thread as `ludus train` runs it, with no server, then with the viewer server on the main thread and N
 * loopback WebSocket spectators in a child process at a low priority, one of which never reads. Tokens per
 * second count response tokens over the steps' wall time (decode, grading, learning). The server's CPU (main-thread
 * CPU time) and the spectators' (their process) are counted apart: on a real deployment the spectators are browsers
 * on other machines, so only the server's share is the viewer's cost to training.
 */
export async function benchViewer(options: ViewerBenchOptions): Promise<ViewerBenchReport> {
  const loadBefore = loadavg()[0];
  const dir = await mkdtemp(join(tmpdir(), 'ludus-bench-viewer-'));
  const without: ViewerBenchRun[] = [];
  const watched: WatchedBenchRun[] = [];
  try {
    options.onProgress?.('warm-up: one step without a viewer (not counted)');
    await timedRun({ ...options, config: { ...options.config, steps: 1 } }, join(dir, 'warm-up'));
    for (let round = 0; round < options.rounds; round++) {
      options.onProgress?.(`round ${round + 1}/${options.rounds}: training without a viewer`);
      without.push(await timedRun(options, join(dir, `without-${round}`)));
      options.onProgress?.(`round ${round + 1}/${options.rounds}: training with the viewer and ${options.spectators} spectators`);
      watched.push(await watchedRun(options, join(dir, `with-${round}`)));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const mean = (runs: readonly ViewerBenchRun[]) => runs.reduce((sum, run) => sum + run.tokens, 0) / runs.reduce((sum, run) => sum + run.seconds, 0);
  const tokensPerSecond = { without: mean(without), with: mean(watched) };
  const total = (runs: readonly ViewerBenchRun[], field: 'mainThreadCpuSeconds' | 'wallSeconds') => runs.reduce((sum, run) => sum + run[field], 0);
  const watchedWall = total(watched, 'wallSeconds');
  return {
    workload: {
      game: options.game.id,
      steps: options.config.steps,
      matchesPerStep: options.config.problemsPerStep * options.config.groupSize,
      maxNewTokens: options.config.maxNewTokens,
      spectators: options.spectators,
      rounds: options.rounds,
    },
    without,
    with: watched,
    tokensPerSecond,
    ratio: tokensPerSecond.with / tokensPerSecond.without,
    serverShare: (total(watched, 'mainThreadCpuSeconds') - total(without, 'mainThreadCpuSeconds')) / watchedWall,
    spectatorsShare: watched.reduce((sum, run) => sum + run.spectatorsCpuSeconds, 0) / watchedWall,
    machine: { cores: availableParallelism(), loadBefore, loadAfter: loadavg()[0] },
  };
}

async function timedRun(options: ViewerBenchOptions, out: string, events?: LudusEmitter): Promise<ViewerBenchRun> {
  const lines: MetricsLine[] = [];
  const sampler = sampleRss();
  const started = { wall: performance.now(), cpu: process.cpuUsage(), main: mainThreadCpu() };
  let ended: { wall: number; cpu: NodeJS.CpuUsage; main: number };
  try {
    const training = await trainInWorker({ out, config: options.config, threads: options.threads }, { events, onStep: (line) => void lines.push(line) });
    await training.done;
  } finally {
    ended = { wall: performance.now(), cpu: process.cpuUsage(started.cpu), main: mainThreadCpu() - started.main };
    sampler.stop();
  }
  const peak = sampler.peak();
  const matches = options.config.problemsPerStep * options.config.groupSize;
  const role = options.game.trainable[0];
  const tokens = lines.reduce((sum, line) => sum + line.roles[role].response_len * matches, 0);
  const seconds = lines.reduce((sum, line) => sum + line.seconds, 0);
  return {
    tokens,
    seconds,
    tokensPerSecond: tokens / seconds,
    peakRssMb: mb(peak),
    wallSeconds: (ended.wall - started.wall) / 1000,
    processCpuSeconds: (ended.cpu.user + ended.cpu.system) / 1e6,
    mainThreadCpuSeconds: ended.main,
  };
}

let clockTicks: number | undefined;
const loop = { start: performance.eventLoopUtilization() };

/** Seconds of CPU the main thread has used: its utime + stime from /proc (Linux), else the event loop's busy time. */
function mainThreadCpu(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    // After the command name: state is field 3, utime and stime fields 14 and 15.
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return performance.eventLoopUtilization(loop.start).active / 1000;
  }
}

async function watchedRun(options: ViewerBenchOptions, out: string): Promise<WatchedBenchRun> {
  const server = await startViewerServer({ port: 0 });
  const events = liveRun(server.hub, { id: 'bench', game: options.game.id, status: 'running', view: spectatorView(options.game.view) });
  const before = process.memoryUsage();
  const child = fork(SPECTATORS_SCRIPT, [`ws://127.0.0.1:${server.port}/ws`, String(options.spectators)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  // The spectators stand in for browsers elsewhere: at a low priority they take mostly cores the engine leaves
  // (at the lowest, a loaded machine starves them until the server drops them as stalled, which lightens its work).
  setPriority(child.pid ?? fail('WORKER_FAILED', 'the spectators process did not start'), SPECTATORS_NICENESS);
  const ask = (type: string) =>
    new Promise<{ type: string; report?: SpectatorsReport }>((resolve) => {
      const listen = (message: { type: string; report?: SpectatorsReport }) => {
        if (message.type !== type) return;
        child.off('message', listen);
        resolve(message);
      };
      child.on('message', listen);
      if (type === 'report') child.send({ type });
    });
  try {
    await ask('ready');
    const connected = process.memoryUsage().rss;
    const run = await timedRun(options, out, events);
    server.hub.flush();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const after = process.memoryUsage();
    const lastSeq = server.hub.snapshot().seq;
    const { report } = await ask('report');
    if (!report) throw new Error('the spectators sent no report');
    return {
      ...run,
      rssMb: { before: mb(before.rss), connected: mb(connected), after: mb(after.rss) },
      heapUsedMb: { before: mb(before.heapUsed), after: mb(after.heapUsed) },
      hub: { ...server.hub.stats },
      lastSeq,
      serverDropped: server.hub.stats.dropped + server.hub.stats.deadSockets,
      clientsAtEnd: server.hub.stats.clients,
      othersUpToDate: report.others.filter((counts) => counts.lastSeq === lastSeq).length,
      othersClosed: report.others.filter((counts) => counts.closed).length,
      increasing: report.increasing,
      othersMeanMb: mb(report.others.reduce((sum, counts) => sum + counts.bytes, 0) / Math.max(1, report.others.length)),
      stuckMb: mb(report.stuck.bytes),
      spectatorsCpuSeconds: report.cpuSeconds,
    };
  } finally {
    child.kill();
    await server.close();
  }
}

export function formatViewerBench(report: ViewerBenchReport): string {
  const { workload } = report;
  const rows = report.with.map(
    (run, i) =>
      `round ${i + 1}: without ${report.without[i].tokensPerSecond.toFixed(0)} tok/s (peak RSS ${report.without[i].peakRssMb} MB), ` +
      `with ${run.tokensPerSecond.toFixed(0)} tok/s (peak RSS ${run.peakRssMb} MB); server RSS ${run.rssMb.before} -> ${run.rssMb.connected} (${workload.spectators} connected) -> ${run.rssMb.after} MB after; ` +
      `dropped by the server: ${run.serverDropped} (clients left ${run.clientsAtEnd}); others up to date: ${run.othersUpToDate}/${workload.spectators - 1} (${run.othersMeanMb} MB each); ` +
      `seq increasing: ${run.increasing}; events ${run.hub.events}, shared frames ${run.hub.sharedSerializations}, per-client frames ${run.hub.clientSerializations}, resynced ${run.hub.resynced}`,
  );
  return [
    `viewer bench: ${workload.game}, ${workload.steps} steps × ${workload.matchesPerStep} matches × ≤${workload.maxNewTokens} tokens, ${workload.spectators} spectators (one never reads)`,
    ...rows,
    `tokens/s without ${report.tokensPerSecond.without.toFixed(0)}, with ${report.tokensPerSecond.with.toFixed(0)}: ratio ${report.ratio.toFixed(3)} (drop ${((1 - report.ratio) * 100).toFixed(1)}%)`,
    `CPU while watched: the server ${(report.serverShare * 100).toFixed(1)}% of one core, the spectators (niceness ${SPECTATORS_NICENESS}) ${(report.spectatorsShare * 100).toFixed(1)}%; ` +
      `${report.machine.cores} cores, load average ${report.machine.loadBefore.toFixed(2)} before, ${report.machine.loadAfter.toFixed(2)} after`,
    '',
  ].join('\n');
}
