import type { AnyGame } from '../../core/catalog.ts';
import { fail } from '../../core/errors.ts';
import { SCRIPTED_PREFIX, type WorldProtocol } from '../../core/protocols/world.ts';
import { deriveSeed } from '../../core/rng.ts';
import type { Problem } from '../../core/tasks/task.ts';
import { FORFEIT_START_LABEL } from '../../core/world/forfeit-credit.ts';
import { exploitability, type PolicyTable } from '../../core/world/exploitability.ts';
import { gameTree } from '../../core/world/game-tree.ts';
import { startWorld, worldPrompt } from '../../core/world/world-match.ts';
import { Scorer } from '../../native/runtime/scorer.ts';
import { arenaFor } from '../../engine/match/arena.ts';
import { DecoderPool } from '../../engine/match/decoder-pool.ts';
import { EndpointClient, type EndpointUsage } from '../../engine/remote/endpoint-client.ts';
import { ENDPOINT_PREFIX, type Endpoint } from '../../engine/remote/endpoint-config.ts';
import { EndpointRuntime } from '../../engine/remote/endpoint-runtime.ts';
import { playMatches } from '../../engine/match/play-matches.ts';
import type { PlayedMatch } from '../../engine/match/played-match.ts';
import { PolicyPool } from '../../engine/policies/policy-pool.ts';
import { dealsTask } from '../../plugins/tasks/deals/deals-task.ts';
import { mcnemarExact } from '../../core/metrics/exact-tests.ts';

/** A rate over n matches with its binomial standard error √(p(1 − p)/n). */
export interface Rate {
  readonly rate: number;
  readonly se: number;
}

/** How a model did against one reference opponent, over matches with the model in each seat in turn. */
export interface OpponentResult {
  readonly opponent: string;
  readonly matches: number;
  readonly win: Rate;
  readonly draw: Rate;
  readonly loss: Rate;
  readonly drawOrWin: Rate;
  /** Matches the model lost by an illegal or unparseable move. */
  readonly forfeit: Rate;
  /** The model's mean payoff ± its standard error. */
  readonly payoff: Rate;
  /** Every other label of the world's (a negotiation's deal), averaged over the matches. */
  readonly labels: Readonly<Record<string, number>>;
  /** Negotiation-style games: the model's payoff over both players' payoffs, on matches where both were paid (a deal). */
  readonly surplusShare?: Rate;
  /** An endpoint opponent: what it was asked (requests, its token counts, retries). */
  readonly endpoint?: EndpointUsage;
  /**
   * Each match's result for the model, in order (the model's seat by seat, deal by deal): the same index is the same
   * deal and seeds for any model evaluated with the same seed, so two results pair match by match. A forfeit is a loss
   * by an illegal or unparseable move.
   */
  readonly perMatch: readonly MatchResult[];
}

export type MatchResult = 'win' | 'draw' | 'loss' | 'forfeit';

/**
 * Two models against one opponent on the same deals and seeds, match by match: the matches one won and the other did
 * not, the other's result on the first's extra wins (forfeited, lost by play, drawn), and McNemar's exact two-sided
 * test on the discordant matches, for wins and for draw-or-win.
 */
export interface PairedWorldResult {
  readonly opponent: string;
  readonly matches: number;
  readonly wins: { readonly onlyModel: number; readonly onlyOther: number; readonly p: number };
  readonly drawOrWin: { readonly onlyModel: number; readonly onlyOther: number; readonly p: number };
  /** The model's wins where the other did not win, by the other's result there. */
  readonly gainedFrom: Readonly<Record<Exclude<MatchResult, 'win'>, number>>;
}

/** `model` against `other`, each an evaluation against the same opponent with the same seed and match count. */
export function pairedWorldResult(model: OpponentResult, other: OpponentResult): PairedWorldResult {
  if (model.opponent !== other.opponent || model.perMatch.length !== other.perMatch.length) {
    fail('INPUT_INVALID', `a paired world comparison needs the same opponent and matches (got ${model.opponent} × ${model.perMatch.length} and ${other.opponent} × ${other.perMatch.length})`);
  }
  const discordant = (good: (r: MatchResult) => boolean) => {
    const onlyModel = model.perMatch.filter((r, i) => good(r) && !good(other.perMatch[i])).length;
    const onlyOther = model.perMatch.filter((r, i) => !good(r) && good(other.perMatch[i])).length;
    return { onlyModel, onlyOther, p: mcnemarExact(onlyModel, onlyOther) };
  };
  const gainedFrom = { draw: 0, loss: 0, forfeit: 0 };
  model.perMatch.forEach((r, i) => {
    const theirs = other.perMatch[i];
    if (r === 'win' && theirs !== 'win') gainedFrom[theirs]++;
  });
  return { opponent: model.opponent, matches: model.perMatch.length, wins: discordant((r) => r === 'win'), drawOrWin: discordant((r) => r === 'win' || r === 'draw'), gainedFrom };
}

export interface WorldEvalOptions {
  readonly game: AnyGame;
  /** Model directory (a shipped base, a run's checkpoint policy). */
  readonly modelDir: string;
  /** Reference opponents by name, or `endpoint:<name>` for a model behind an endpoint of `endpoints`. */
  readonly opponents: readonly string[];
  /** Endpoints an opponent may name (an endpoints file). */
  readonly endpoints?: Readonly<Record<string, Endpoint>>;
  /** Matches per opponent, half with the model in each seat of a two-player game. */
  readonly matches: number;
  readonly seed: number;
  readonly temperature: number;
  /** Nucleus sampling of the model's moves (1: none). */
  readonly topP: number;
  readonly threads?: number;
  readonly onProgress?: (label: string, done: number, total: number) => void;
}

/**
 * How SPIRAL samples a model's moves when it evaluates (its run scripts' evaluation settings: temperature 0.6, top-p
 * 0.95): the default of `ludus eval --game`, so the reproduction's figures are at the paper's setting; any other is
 * printed beside every figure it produced.
 */
export const SPIRAL_EVAL_SAMPLING = { temperature: 0.6, topP: 0.95 } as const;

/** The world protocol of a world game, or a coded refusal naming the game. */
export function worldProtocolOf(game: AnyGame): WorldProtocol<string> {
  if (game.protocol.family !== 'world') return fail('INPUT_INVALID', `game "${game.id}" is not a world game (its protocol is ${game.protocol.family})`, { game: game.id });
  return game.protocol;
}

const MODEL = 'model';

/**
 * Win, draw and loss rates (with SEs) of a model against each reference opponent the game names, on test deals, the
 * model in every seat in turn (seat s plays matches s, s + players, …). The seats of one call are fixed, so the
 * matches of one seat go in one batch through the match engine; a reference opponent moves by its function, an
 * endpoint opponent (`endpoint:<name>`) by its model's text.
 */
export async function evaluateWorld(options: WorldEvalOptions): Promise<OpponentResult[]> {
  const protocol = worldProtocolOf(options.game);
  const players: readonly string[] = protocol.world.players;
  const endpoints = new Map<string, EndpointClient>();
  for (const opponent of options.opponents) {
    if (opponent.startsWith(ENDPOINT_PREFIX)) {
      const name = opponent.slice(ENDPOINT_PREFIX.length);
      const endpoint = options.endpoints?.[name] ?? fail('INPUT_INVALID', `--opponents: no endpoint "${name}" (endpoints: ${Object.keys(options.endpoints ?? {}).join(', ') || 'none; give an endpoints file'})`, { opponent });
      endpoints.set(opponent, new EndpointClient(name, endpoint));
      continue;
    }
    if (!protocol.scripted?.[opponent]) fail('INPUT_INVALID', `--opponents: game "${options.game.id}" has no reference opponent "${opponent}" (it has: ${Object.keys(protocol.scripted ?? {}).join(', ')}, or endpoint:<name>)`, { opponent });
  }
  if (!(Number.isInteger(options.matches) && options.matches >= players.length)) fail('INPUT_INVALID', `--matches must be a whole number of at least ${players.length}, got ${options.matches}`, { matches: options.matches });
  const pool = await PolicyPool.load([{ name: MODEL, init: options.modelDir, trainable: false }], { task: 'world' });
  const config = pool.policy(MODEL).config;
  const perSeat = Math.ceil(options.matches / players.length);
  const local = new DecoderPool(pool, { rows: Math.min(perSeat, 64), maxLen: config.maxPositionEmbeddings, threads: options.threads });
  const decoders = endpoints.size > 0 ? new EndpointRuntime(local, endpoints, pool.tokenizer) : local;
  const arena = arenaFor(options.game, decoders, pool.tokenizer, config.eosTokenIds, { temperature: options.temperature, topP: options.topP, maxNewTokens: protocol.maxTokens });
  const deals = dealsTask().problems('test', perSeat, options.seed) as unknown as Problem[];
  const results: OpponentResult[] = [];
  try {
    for (const [o, opponent] of options.opponents.entries()) {
      const outcomes: { payoffs: Record<string, number>; seat: string; labels: Record<string, number> }[] = [];
      for (const [s, seat] of players.entries()) {
        const seats = Object.fromEntries(players.map((p) => [p, p === seat ? MODEL : endpoints.has(opponent) ? opponent : `${SCRIPTED_PREFIX}${opponent}`]));
        const seeds = { generation: deriveSeed(options.seed, o, s, 1), schedule: deriveSeed(options.seed, o, s, 2) };
        const matches: PlayedMatch[] = await playMatches(arena, { problems: deals, copies: 1, seats, seeds, label: `eval/${opponent}/${seat}` });
        for (const match of matches) outcomes.push({ payoffs: match.rewards.outcome as Record<string, number>, seat, labels: (match.rewards.labels?.[seat] ?? {}) as Record<string, number> });
        options.onProgress?.(`vs ${opponent}`, outcomes.length, perSeat * players.length);
      }
      const client = endpoints.get(opponent);
      results.push({ ...summarize(opponent, outcomes), ...(client ? { endpoint: client.usage } : {}) });
    }
  } finally {
    await decoders.release();
  }
  return results;
}

function summarize(opponent: string, outcomes: readonly { payoffs: Record<string, number>; seat: string; labels: Record<string, number> }[]): OpponentResult {
  const n = outcomes.length;
  const rate = (values: readonly number[]): Rate => {
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const variance = values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / Math.max(1, values.length - 1);
    return { rate: mean, se: Math.sqrt(variance / values.length) };
  };
  const of = (name: string) => outcomes.map((o) => o.labels[name] ?? 0);
  const names = [...new Set(outcomes.flatMap((o) => Object.keys(o.labels)))].filter((name) => !['win', 'draw', 'loss', 'forfeit', FORFEIT_START_LABEL].includes(name));
  const shares = outcomes.filter((o) => (o.labels.deal ?? 0) === 1).map((o) => {
    const total = Object.values(o.payoffs).reduce((a, b) => a + b, 0);
    return total > 0 ? o.payoffs[o.seat] / total : 0.5;
  });
  return {
    opponent,
    matches: n,
    win: rate(of('win')),
    draw: rate(of('draw')),
    loss: rate(of('loss')),
    drawOrWin: rate(outcomes.map((o) => 1 - (o.labels.loss ?? 0))),
    forfeit: rate(of('forfeit')),
    payoff: rate(outcomes.map((o) => o.payoffs[o.seat])),
    labels: Object.fromEntries(names.map((name) => [name, rate(of(name)).rate])),
    ...(names.includes('deal') && shares.length > 0 ? { surplusShare: rate(shares) } : {}),
    perMatch: outcomes.map(({ labels }): MatchResult => ((labels.forfeit ?? 0) > 0 ? 'forfeit' : (labels.win ?? 0) > 0 ? 'win' : (labels.draw ?? 0) > 0 ? 'draw' : 'loss')),
  };
}

/** A policy's move probabilities at every information set, and their exact exploitability. */
export interface ExploitabilityResult {
  readonly exploitability: number;
  /** NashConv: each player's best-response gain over its value under the policy, summed. */
  readonly nashConv: number;
  readonly policy: PolicyTable;
  /** Per information set, the probability the model puts on all its legal moves' texts together (the rest is illegal or other text). */
  readonly legalMass: Readonly<Record<string, number>>;
  readonly nodes: number;
}

/** Sequences scored per call (ours): a few dozen information sets' moves at once. */
const SCORED_PER_CALL = 64;

/**
 * The exact exploitability of a model's policy in any small world game, from the contract alone (gameTree, then
 * exploitability): at every information set, the prompt the player would get, each legal move's text (as the model
 * writes it: a space, the move, the stop token) scored teacher-forced at temperature 1, the probabilities renormalised
 * over the legal moves, then exact best responses. An exact number, not a sample. A tree over `maxNodes` is
 * WORLD_TOO_LARGE, naming its size.
 */
export async function worldExploitability(options: { game: AnyGame; modelDir: string; threads?: number; maxNodes?: number }): Promise<ExploitabilityResult> {
  const protocol = worldProtocolOf(options.game);
  const { world } = protocol;
  const tree = gameTree(world, options.maxNodes);
  const pool = await PolicyPool.load([{ name: MODEL, init: options.modelDir, trainable: false }], { task: 'world' });
  const policy = pool.policy(MODEL);
  const eos = policy.config.eosTokenIds[0];
  const scorer = await Scorer.create(policy, { threads: options.threads });
  try {
    const sets = tree.informationSets.map((set) => {
      const match = { ...startWorld(world.id, world, 0), state: set.state };
      const prompt = pool.tokenizer.encode(worldPrompt(world, match, set.player, protocol.illegal));
      const legal = world.legalMoves(set.state);
      const sequences = legal.map((move: unknown) => [...prompt, ...pool.tokenizer.encode(` ${world.moveText(move)}`), eos]);
      return { set, promptLength: prompt.length, sequences };
    });
    const logps = new Map<string, number[]>();
    for (let i = 0; i < sets.length; ) {
      const batch: typeof sets = [];
      for (let rows = 0; i < sets.length && (batch.length === 0 || rows + sets[i].sequences.length <= SCORED_PER_CALL); i++) {
        batch.push(sets[i]);
        rows += sets[i].sequences.length;
      }
      const scored = await scorer.score(batch.flatMap((b) => b.sequences));
      let at = 0;
      for (const { set, promptLength, sequences } of batch) {
        logps.set(set.key, sequences.map(() => scored[at++].logprobs.slice(promptLength).reduce<number>((sum, lp) => sum + (lp ?? 0), 0)));
      }
    }
    const table: Record<string, Record<string, number>> = {};
    const legalMass: Record<string, number> = {};
    for (const { set } of sets) {
      const lp = logps.get(set.key)!;
      const top = Math.max(...lp);
      const weights = lp.map((v) => Math.exp(v - top));
      const total = weights.reduce((a, b) => a + b, 0);
      table[set.key] = Object.fromEntries(set.moves.map((id, i) => [id, weights[i] / total]));
      legalMass[set.key] = lp.reduce((sum, v) => sum + Math.exp(v), 0);
    }
    const measured = exploitability(tree, table);
    return { exploitability: measured.exploitability, nashConv: measured.nashConv, policy: table, legalMass, nodes: tree.nodes };
  } finally {
    await scorer.release();
  }
}
