import { sampleRss } from '../../../native/bench/rss-sampler.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Catalog } from '../../../core/catalog.ts';
import { fail } from '../../../core/errors.ts';
import { parseConfig } from '../../../core/parse-config.ts';
import { arenaFor } from '../../../engine/match/arena.ts';
import { DecoderPool } from '../../../engine/match/decoder-pool.ts';
import { trainingSeeds } from '../../../engine/match/match-seeds.ts';
import { playMatches } from '../../../engine/match/play-matches.ts';
import { PolicyPool } from '../../../engine/policies/policy-pool.ts';
import { stepProblems } from '../../../engine/trainer/trainer.ts';
import { resolveModelDir } from '../../../plugins/policies/default-model.ts';
import { taskByName } from '../../../plugins/tasks/registry.ts';
import { runTournament } from '../run-tournament.ts';
import { TournamentConfigSchema } from '../tournament-config.ts';
import { writeNoiseAdapter, writePerturbedCopies } from './perturbed-copies.ts';

export interface TournamentBenchOptions {
  readonly catalog: Catalog;
  readonly entrants: number;
  /** Problems each lineup plays, and matches per problem: a lineup's batch is problems × copies rows. */
  readonly problems: number;
  readonly copies: number;
  readonly newTokens: number;
  readonly maxLoaded: number;
  readonly repeats: number;
  readonly threads: number;
  readonly onProgress?: (label: string) => void;
}

export interface TournamentBenchReport {
  readonly workload: { entrants: number; game: string; rowsPerBatch: number; matchesPerSide: number; newTokens: number; maxLoaded: number; repeats: number; threads: number };
  /** Response tokens per second over loading, compiling and decoding, per repeat and their median. */
  readonly singleTokS: readonly number[];
  readonly roundRobinTokS: readonly number[];
  /** The same round-robin with every entrant a rank-16 adapter (PEFT directory) on the one shipped base. */
  readonly adapterTokS: readonly number[];
  readonly singleMedian: number;
  readonly roundRobinMedian: number;
  readonly adapterMedian: number;
  readonly ratio: number;
  readonly adapterRatio: number;
  /** Highest RSS sampled during each side (every 100 ms), and the most entrants the round-robin held at once. */
  readonly peakRssMb: { single: number; roundRobin: number; adapters: number };
  readonly loadedPeak: number;
  /** The adapter round-robin: most full weight copies and adapters held at once, and full weight copies read from disk. */
  readonly adapterMemory: { loadedPeak: number; adaptersPeak: number; weightReads: number };
  /** The most MB of weights each round-robin held at once (each full copy once, plus every adapter's tensors). */
  readonly weightsPeakMb: { roundRobin: number; adapters: number };
}

/**
 * A round-robin of `entrants` distinct full checkpoints, and one of as many distinct rank-16 adapters (PEFT directories)
 * on the shipped base, on the solo game (every entrant plays the same deal of
 * problems × copies, the whole cycle in one round, rated, nothing trained) against one policy playing as many matches
 * in batches of the same width, interleaved `repeats` times. Both count loading and compiling: the round-robin
 * reads each entrant from disk and builds its decoder (its rows share one batch; different entrants do not), the
 * single policy builds one decoder a repeat.
 */
export async function benchTournament(options: TournamentBenchOptions): Promise<TournamentBenchReport> {
  if (!(Number.isInteger(options.entrants) && options.entrants >= 2)) fail('INPUT_INVALID', `--entrants must be a whole number ≥ 2, got ${options.entrants}`, { flag: 'entrants' });
  const progress = options.onProgress ?? (() => {});
  const root = await mkdtemp(join(tmpdir(), 'ludus-bench-tournament-'));
  const sampler = sampleRss();
  try {
    progress(`writing ${options.entrants} distinct copies of the shipped base`);
    const dirs = await writePerturbedCopies(resolveModelDir('default'), join(root, 'entrants'), options.entrants, { seed: 1, scale: 0.01, prefix: 'entrant-' });
    progress(`writing ${options.entrants} distinct rank-16 adapters on the shipped base`);
    const adapterDirs = await Promise.all(dirs.map((_, i) => writeNoiseAdapter(resolveModelDir('default'), join(root, 'adapters', `adapter-${i}`), { seed: 1 + i, initStdB: 0.02 })));
    const tournament = (inits: readonly string[]) =>
      parseConfig(
        TournamentConfigSchema,
        {
          entrants: inits.map((init, i) => ({ name: `e${i}`, init })),
          games: [{ game: 'grpo' }],
          format: { kind: 'round-robin', cycles: 1, schedule: 'all' },
          problemsPerRound: options.problems,
          groupSize: options.copies,
          maxNewTokens: options.newTokens,
          maxLoaded: options.maxLoaded,
          maxAdaptersLoaded: Math.max(2, options.maxLoaded),
        },
        'bench tournament',
      );
    const config = tournament(dirs);
    const adapterConfig = tournament(adapterDirs);
    const game = options.catalog.games.create('grpo', { grader: options.catalog.graders.create(config.grader), knobs: {} });
    const task = await taskByName(config.task);
    const problems = stepProblems(task, { problemsPerStep: options.problems, trainProblems: undefined }, 0);
    const rows = options.problems * options.copies;

    const single = async () => {
      const started = performance.now();
      const pool = await PolicyPool.load([{ name: 'senior', init: dirs[0], trainable: false }], { task: config.task });
      const policy = pool.policy('senior');
      const decoders = new DecoderPool(pool, { rows, maxLen: policy.config.maxPositionEmbeddings, threads: options.threads });
      const arena = arenaFor(game, decoders, pool.tokenizer, policy.config.eosTokenIds, { temperature: config.temperature, topP: config.topP, maxNewTokens: options.newTokens });
      let tokens = 0;
      try {
        for (let i = 0; i < options.entrants; i++) {
          const matches = await playMatches(arena, { problems, copies: options.copies, seats: { senior: 'senior' }, seeds: trainingSeeds(config.seed, i), label: `single-${i}` });
          tokens += matches.reduce((sum, match) => sum + match.turns.reduce((n, turn) => n + turn.tokens.length, 0), 0);
        }
      } finally {
        await decoders.release();
      }
      return tokens / ((performance.now() - started) / 1000);
    };
    let loadedPeak = 0;
    const weightsPeak = { roundRobin: 0, adapters: 0 };
    const adapterMemory = { loadedPeak: 0, adaptersPeak: 0, weightReads: 0 };
    const roundRobin = async (repeat: number) => {
      const result = await runTournament({ out: join(root, `round-robin-${repeat}`), config, catalog: options.catalog, threads: options.threads });
      loadedPeak = Math.max(loadedPeak, result.loadedPeak);
      weightsPeak.roundRobin = Math.max(weightsPeak.roundRobin, result.weightBytesPeak);
      return result.played.tokens / result.played.seconds;
    };
    const adapterRoundRobin = async (repeat: number) => {
      const result = await runTournament({ out: join(root, `adapters-${repeat}`), config: adapterConfig, catalog: options.catalog, threads: options.threads });
      for (const key of ['loadedPeak', 'adaptersPeak', 'weightReads'] as const) adapterMemory[key] = Math.max(adapterMemory[key], result[key]);
      weightsPeak.adapters = Math.max(weightsPeak.adapters, result.weightBytesPeak);
      return result.played.tokens / result.played.seconds;
    };

    progress('warm-up');
    await single();
    const rates = { single: [] as number[], roundRobin: [] as number[], adapters: [] as number[] };
    const peaks = { single: 0, roundRobin: 0, adapters: 0 };
    const sides: [keyof typeof rates, (repeat: number) => Promise<number>][] = [['single', () => single()], ['roundRobin', roundRobin], ['adapters', adapterRoundRobin]];
    for (let repeat = 1; repeat <= options.repeats; repeat++) {
      progress(`repeat ${repeat} of ${options.repeats}: one policy, the ${options.entrants}-entrant round-robin of checkpoints, then of adapters`);
      for (const [side, play] of sides) {
        sampler.reset();
        rates[side].push(await play(repeat));
        peaks[side] = Math.max(peaks[side], sampler.peak());
      }
    }
    const singleMedian = median(rates.single);
    const roundRobinMedian = median(rates.roundRobin);
    const adapterMedian = median(rates.adapters);
    const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
    const mb10 = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
    return {
      workload: { entrants: options.entrants, game: 'grpo', rowsPerBatch: rows, matchesPerSide: rows * options.entrants, newTokens: options.newTokens, maxLoaded: options.maxLoaded, repeats: options.repeats, threads: options.threads },
      singleTokS: rates.single,
      roundRobinTokS: rates.roundRobin,
      adapterTokS: rates.adapters,
      singleMedian,
      roundRobinMedian,
      adapterMedian,
      ratio: roundRobinMedian / singleMedian,
      adapterRatio: adapterMedian / singleMedian,
      peakRssMb: { single: mb(peaks.single), roundRobin: mb(peaks.roundRobin), adapters: mb(peaks.adapters) },
      loadedPeak,
      adapterMemory,
      weightsPeakMb: { roundRobin: mb10(weightsPeak.roundRobin), adapters: mb10(weightsPeak.adapters) },
    };
  } finally {
    sampler.stop();
    await rm(root, { recursive: true, force: true });
  }
}

export function formatTournamentBench(report: TournamentBenchReport): string {
  const w = report.workload;
  const rates = (values: readonly number[]) => values.map((v) => v.toFixed(0)).join(', ');
  return [
    `tournament bench: ${w.entrants} entrants (distinct checkpoints), ${w.game}, batches of ${w.rowsPerBatch} rows, ${w.matchesPerSide} matches a side, ≤ ${w.newTokens} new tokens, median of ${w.repeats}, ${w.threads} threads`,
    `  one policy, ${w.entrants} batches               ${report.singleMedian.toFixed(0)} tok/s (${rates(report.singleTokS)})`,
    `  ${w.entrants}-entrant round-robin                ${report.roundRobinMedian.toFixed(0)} tok/s (${rates(report.roundRobinTokS)})   ratio ${report.ratio.toFixed(2)} (target ≥ 0.8)`,
    `  ${w.entrants}-adapter round-robin (one base)     ${report.adapterMedian.toFixed(0)} tok/s (${rates(report.adapterTokS)})   ratio ${report.adapterRatio.toFixed(2)}`,
    `  weights held at most: round-robin ${report.weightsPeakMb.roundRobin} MB, adapters ${report.weightsPeakMb.adapters} MB`,
    `  peak RSS: one policy ${report.peakRssMb.single} MB, round-robin ${report.peakRssMb.roundRobin} MB (at most ${report.loadedPeak} of ${w.entrants} entrants loaded, maxLoaded ${w.maxLoaded}), adapters ${report.peakRssMb.adapters} MB (base read ${report.adapterMemory.weightReads}×, at most ${report.adapterMemory.adaptersPeak} adapters loaded)`,
    '',
  ].join('\n');
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
