import type { AnyGame } from '../../core/catalog.ts';
import { fail } from '../../core/errors.ts';
import type { Problem } from '../../core/tasks/task.ts';
import { generate } from '../../native/runtime/generate.ts';
import { dealsTask } from '../../plugins/tasks/deals/deals-task.ts';
import { arenaFor } from '../match/arena.ts';
import { DecoderPool } from '../match/decoder-pool.ts';
import { playMatches } from '../match/play-matches.ts';
import type { PlayedMatch } from '../match/played-match.ts';
import { PolicyPool } from '../policies/policy-pool.ts';

export interface WorldGameBenchOptions {
  /** A world game (self-play: one policy in every seat). */
  readonly game: AnyGame;
  /** Model directory (the world base). */
  readonly modelDir: string;
  readonly matches: number;
  readonly repeats: number;
  readonly threads: number;
}

export interface WorldGameBenchReport {
  readonly game: string;
  readonly matches: number;
  /** Moves per match, as played (matches end at different turns). */
  readonly meanTurns: number;
  readonly tokens: number;
  /** Multi-turn matches, every seat the same policy, batched across matches at different turns. */
  readonly worldTokS: number;
  /** Solo decoding of the very turns the matches played (same prompts, same token count), in full batches of `matches`. */
  readonly soloTokS: number;
  readonly worldOverSolo: number;
}

/**
 * Multi-turn world matches against solo decoding on the same tokens: no stop token, so every move decodes the game's
 * whole move budget and both sides decode exactly the same tokens; the matches still end at different turns (a win,
 * a forfeit), so the engine's rounds shrink as matches finish, which solo decoding in full batches does not pay.
 */
export async function benchWorldGame(options: WorldGameBenchOptions): Promise<WorldGameBenchReport> {
  const { game } = options;
  if (game.protocol.family !== 'world') fail('INPUT_INVALID', `bench games: "${game.id}" is not a world game`, { game: game.id });
  const budget = game.protocol.family === 'world' ? game.protocol.maxTokens : 0;
  const pool = await PolicyPool.load(game.policies.map((name) => ({ name, init: options.modelDir, trainable: false })), { task: 'world' });
  const config = pool.policy(game.policies[0]).config;
  const decoders = new DecoderPool(pool, { rows: options.matches, maxLen: config.maxPositionEmbeddings, threads: options.threads });
  const arena = arenaFor(game, decoders, pool.tokenizer, [], { temperature: 1, topP: 1, maxNewTokens: budget });
  const deals = dealsTask().problems('test', options.matches) as unknown as Problem[];
  const seats = game.rotation.at(0).seats;
  let played: PlayedMatch[] = [];
  const world = async (seed: number) => {
    const started = performance.now();
    played = await playMatches(arena, { problems: deals, copies: 1, seats, seeds: { generation: seed, schedule: seed }, label: 'bench' });
    return tokensOf(played) / ((performance.now() - started) / 1000);
  };
  const solo = async (seed: number) => {
    const decoder = await decoders.get([game.policies[0]]);
    const prompts = played.flatMap((match) => match.turns.map((turn) => turn.promptIds as number[]));
    const started = performance.now();
    let tokens = 0;
    for (let start = 0; start < prompts.length; start += options.matches) {
      const rows = prompts.slice(start, start + options.matches);
      // The last batch is padded with rows given no budget, as the match engine pads its calls.
      const padding = options.matches - rows.length;
      const rollouts = await generate(decoder, [...rows, ...Array.from({ length: padding }, () => rows[0])], {
        maxNewTokens: budget,
        rowMaxNewTokens: [...rows.map(() => budget), ...Array<number>(padding).fill(0)],
        sampling: { temperature: 1, topK: 0, topP: 1 },
        seed,
        stopTokens: [],
      });
      tokens += rollouts.slice(0, rows.length).reduce((sum, r) => sum + r.tokens.length, 0);
    }
    return tokens / ((performance.now() - started) / 1000);
  };
  try {
    await world(0);
    await solo(0);
    const worldRates: number[] = [];
    const soloRates: number[] = [];
    for (let repeat = 1; repeat <= options.repeats; repeat++) {
      worldRates.push(await world(repeat));
      soloRates.push(await solo(repeat));
    }
    const worldTokS = median(worldRates);
    const soloTokS = median(soloRates);
    return { game: game.id, matches: options.matches, meanTurns: played.reduce((s, m) => s + m.turns.length, 0) / played.length, tokens: tokensOf(played), worldTokS, soloTokS, worldOverSolo: worldTokS / soloTokS };
  } finally {
    await decoders.release();
  }
}

export function formatWorldGameBench(report: WorldGameBenchReport): string {
  return [
    `world game ${report.game}: ${report.matches} matches in flight, ${report.meanTurns.toFixed(1)} moves a match, ${report.tokens} tokens`,
    `  multi-turn matches (self-play)            ${report.worldTokS.toFixed(0)} tok/s   ratio ${report.worldOverSolo.toFixed(2)} (target ≥ 0.8)`,
    `  solo decode of the same turns             ${report.soloTokS.toFixed(0)} tok/s`,
    '',
  ].join('\n');
}

const tokensOf = (matches: readonly PlayedMatch[]) => matches.reduce((sum, match) => sum + match.turns.reduce((s, turn) => s + turn.tokens.length, 0), 0);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
