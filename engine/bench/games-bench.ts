import { sampleRss, type RssSampler } from '../../native/bench/rss-sampler.ts';
import { fromGroupAdvantages } from '../../core/advantages/estimator.ts';
import { groupAdvantages } from '../../core/advantages/estimators.ts';
import { defineGame } from '../../core/game/define-game.ts';
import { Rotations } from '../../core/game/rotations.ts';
import type { Problem } from '../../core/tasks/task.ts';
import { generate } from '../../native/runtime/generate.ts';
import { Learner } from '../../native/train/learner.ts';
import { taskByName } from '../../plugins/tasks/registry.ts';
import { arenaFor } from '../match/arena.ts';
import { DecoderPool } from '../match/decoder-pool.ts';
import { playMatches } from '../match/play-matches.ts';
import type { PlayedMatch } from '../match/played-match.ts';
import { PolicyPool } from '../policies/policy-pool.ts';
import { learnPolicy, type LearnContext } from '../trainer/learn-policy.ts';
import { NonFiniteGuard } from '../trainer/non-finite-guard.ts';

export interface GamesBenchOptions {
  /** Model directory every policy starts from, or 'default'. */
  model: string;
  task: string;
  /** Matches in flight, and the solo decoding batch they are compared with. */
  matches: number;
  /** Tokens per turn (no stop token ends a row early, so every row decodes exactly this many). */
  turnTokens: number;
  repeats: number;
  threads: number;
  onProgress?: (label: string) => void;
}

export interface GamesBenchReport {
  readonly workload: { model: string; matches: number; turnTokens: number; repeats: number; threads: number };
  /** Solo decoding: one policy, `matches` rows, `turnTokens` tokens each. */
  readonly soloTokS: number;
  /** A two-role sequential game with two policies, `matches` matches in flight: every turn's tokens over the wall time. */
  readonly sequentialTokS: number;
  readonly sequentialOverSolo: number;
  /**
   * Solo decoding of the very turns the game played (the same prompts, second turns' included, batch `matches`):
   * the game against it is the match engine's own overhead, apart from the longer contexts its second turns read.
   */
  readonly sameTurnsTokS: number;
  readonly sequentialOverSameTurns: number;
  /** Seconds of one learning step from the same matches: each policy alone, then both in one trainer step. */
  readonly learnSeconds: { readonly alice: number; readonly bob: number; readonly both: number };
  /** both / (alice + bob). */
  readonly bothOverSum: number;
  readonly peakRssMb: number;
}

type Role = 'first' | 'second';

/** Two turns, the second prompted with the first's text; both policies learn (alice the first role, bob the second). */
function twoTurnGame(turnTokens: number) {
  return defineGame<Role, Problem>({
    id: 'bench-two-turns',
    roles: ['first', 'second'],
    policies: ['alice', 'bob'],
    protocol: {
      family: 'sequential',
      name: 'two-turns',
      turns: [
        { role: 'first', template: (_, problem) => problem.prompt, maxTokens: turnTokens },
        { role: 'second', template: ([first], problem) => `${problem.prompt}${first.text}\n\n`, maxTokens: turnTokens },
      ],
    },
    rewards: ({ transcript }) => ({
      outcome: { first: transcript[0].tokens.reduce((a, b) => a + b, 0) % 7, second: transcript[1].tokens.reduce((a, b) => a + b, 0) % 5 },
    }),
    rotation: Rotations.fixed<Role>({ first: 'alice', second: 'bob' }),
    trainable: ['first', 'second'],
  });
}

/**
 * The match engine's cost, measured side by side in one process: a two-role sequential game with `matches` matches
 * in flight against solo decoding at the same batch (rows of one policy share one run, so the game should decode
 * about as fast), and one learning step of two policies against each policy's step alone.
 */
export async function benchGames(options: GamesBenchOptions): Promise<GamesBenchReport> {
  const sampler = sampleRss();
  try {
    return await measureGames(options, sampler);
  } finally {
    sampler.stop();
  }
}

async function measureGames(options: GamesBenchOptions, sampler: RssSampler): Promise<GamesBenchReport> {
  const progress = options.onProgress ?? (() => {});
  const game = twoTurnGame(options.turnTokens);
  const pool = await PolicyPool.load(
    ['alice', 'bob'].map((name) => ({ name, init: options.model, trainable: false })),
    { task: options.task },
  );
  const config = pool.policy('alice').config;
  const decoders = new DecoderPool(pool, { rows: options.matches, maxLen: config.maxPositionEmbeddings, threads: options.threads });
  // No stop token: every row decodes its whole budget, so both sides do exactly the same number of decoding steps.
  const arena = arenaFor(game, decoders, pool.tokenizer, [], { temperature: 1, topP: 1, maxNewTokens: options.turnTokens });
  const problems = (await taskByName(options.task)).problems('test', options.matches);
  const prompts = problems.map((problem) => pool.tokenizer.encode(problem.prompt));
  const seats = game.rotation.at(0).seats;

  const solo = async (seed: number) => {
    const decoder = await decoders.get(['alice']);
    const started = performance.now();
    const rollouts = await generate(decoder, prompts, { maxNewTokens: options.turnTokens, sampling: { temperature: 1, topK: 0, topP: 1 }, seed, stopTokens: [] });
    return rollouts.reduce((sum, r) => sum + r.tokens.length, 0) / ((performance.now() - started) / 1000);
  };
  let matches: PlayedMatch[] = [];
  const sequential = async (seed: number) => {
    const started = performance.now();
    matches = await playMatches(arena, { problems, copies: 1, seats, seeds: { generation: seed, schedule: seed }, label: 'bench' });
    const tokens = matches.reduce((sum, match) => sum + match.turns.reduce((s, turn) => s + turn.tokens.length, 0), 0);
    return tokens / ((performance.now() - started) / 1000);
  };
  const sameTurns = async (seed: number) => {
    const decoders = await Promise.all([decodersOf(['alice']), decodersOf(['bob'])]);
    const started = performance.now();
    let tokens = 0;
    for (const [turn, decoder] of decoders.entries()) {
      const rollouts = await generate(decoder, matches.map((match) => match.turns[turn].promptIds), { maxNewTokens: options.turnTokens, sampling: { temperature: 1, topK: 0, topP: 1 }, seed: seed + turn, stopTokens: [] });
      tokens += rollouts.reduce((sum, r) => sum + r.tokens.length, 0);
    }
    return tokens / ((performance.now() - started) / 1000);
  };
  const decodersOf = (names: string[]) => decoders.get(names);
  progress('warm-up');
  await solo(0);
  await sequential(0);
  await sameTurns(0);
  const soloRates: number[] = [];
  const sequentialRates: number[] = [];
  const sameTurnRates: number[] = [];
  for (let repeat = 1; repeat <= options.repeats; repeat++) {
    progress(`decode, repeat ${repeat} of ${options.repeats}: solo, the two-role game, solo on the game's turns`);
    soloRates.push(await solo(repeat));
    sequentialRates.push(await sequential(repeat));
    sameTurnRates.push(await sameTurns(repeat));
  }

  progress('learning: alice alone, bob alone, both');
  const learners = await Promise.all(
    ['alice', 'bob'].map(async (name) => {
      const learner = await Learner.create(config, new Map([...pool.policy(name).weights].map(([key, t]) => [key, { dims: t.dims, data: Float32Array.from(t.data) }])), {
        objective: 'policy-gradient',
        temperature: 1,
        threads: options.threads,
      });
      return { name, learner, guard: new NonFiniteGuard(3) };
    }),
  );
  const estimator = fromGroupAdvantages('grpo', groupAdvantages.grpo);
  const context: LearnContext = {
    game,
    seats,
    groupSize: 2,
    step: 0,
    totalSteps: 1,
    padToken: 0,
    reference: () => pool.policy('alice'),
    score: async () => [],
    estimator: () => estimator,
    estimatorStates: {},
  };
  const learn = async (names: readonly string[]) => {
    const started = performance.now();
    for (const policy of learners.filter((l) => names.includes(l.name))) await learnPolicy(context, policy, matches, 1e-6);
    return (performance.now() - started) / 1000;
  };
  await learn(['alice', 'bob']);
  const seconds = { alice: [] as number[], bob: [] as number[], both: [] as number[] };
  for (let repeat = 0; repeat < options.repeats; repeat++) {
    seconds.alice.push(await learn(['alice']));
    seconds.bob.push(await learn(['bob']));
    seconds.both.push(await learn(['alice', 'bob']));
  }
  const peak = sampler.peak();
  for (const { learner } of learners) await learner.release();
  await decoders.release();

  const soloTokS = median(soloRates);
  const sequentialTokS = median(sequentialRates);
  const sameTurnsTokS = median(sameTurnRates);
  const learnSeconds = { alice: median(seconds.alice), bob: median(seconds.bob), both: median(seconds.both) };
  return {
    workload: { model: options.model, matches: options.matches, turnTokens: options.turnTokens, repeats: options.repeats, threads: options.threads },
    soloTokS,
    sequentialTokS,
    sequentialOverSolo: sequentialTokS / soloTokS,
    sameTurnsTokS,
    sequentialOverSameTurns: sequentialTokS / sameTurnsTokS,
    learnSeconds,
    bothOverSum: learnSeconds.both / (learnSeconds.alice + learnSeconds.bob),
    peakRssMb: Math.round(peak / 2 ** 20),
  };
}

export function formatGamesBench(report: GamesBenchReport): string {
  const { workload: w } = report;
  return [
    `games bench: ${w.model}, ${w.matches} matches in flight, ${w.turnTokens} tokens per turn, median of ${w.repeats}, ${w.threads} threads`,
    `  solo decode (1 policy, batch ${w.matches})        ${report.soloTokS.toFixed(0)} tok/s`,
    `  two-role sequential game (2 policies)      ${report.sequentialTokS.toFixed(0)} tok/s   ratio ${report.sequentialOverSolo.toFixed(2)} (target ≥ 0.8)`,
    `  solo decode of the game's own turns         ${report.sameTurnsTokS.toFixed(0)} tok/s   game / this ${report.sequentialOverSameTurns.toFixed(2)} (the engine's overhead)`,
    `  learning step: alice ${report.learnSeconds.alice.toFixed(2)} s, bob ${report.learnSeconds.bob.toFixed(2)} s, both ${report.learnSeconds.both.toFixed(2)} s   both/(sum) ${report.bothOverSum.toFixed(2)} (target 1 ± 0.1)`,
    `  peak RSS ${report.peakRssMb} MB`,
    '',
  ].join('\n');
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
