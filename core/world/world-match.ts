import { fail } from '../errors.ts';
import { deriveSeed, Rng, type RngState } from '../rng.ts';
import { chanceAt, drawChance, parseMove, scriptedMove } from './world-moves.ts';
import type { AnyWorld, IllegalMovePolicy, ScriptedPlayer, Utility } from './world.ts';

/** What one turn of a world match did: the move it made (its text), or why it made none. */
export interface WorldTurnNote {
  readonly player: string;
  /** The move's text when it was legal; null otherwise. */
  readonly move: string | null;
  readonly verdict: 'legal' | 'illegal' | 'unparseable';
  /** The parser's reason for an illegal move. */
  readonly why?: string;
  /** The world's `moveReward` for a legal move, when it pays the mover a number. */
  readonly reward?: number;
  /** The world's `moveReward` for a legal move, when it pays players by name (any of them). */
  readonly rewards?: Readonly<Record<string, number>>;
}

/** Where a world match stands: the world's state, the turns so far and how it ended, if it has. */
export interface WorldMatch {
  readonly game: string;
  readonly state: unknown;
  /** Legal moves applied so far (what the turn limit counts). */
  readonly moves: number;
  readonly notes: readonly WorldTurnNote[];
  /** Illegal tries in a row by the player to move (retry policy). */
  readonly tries: number;
  /** The player who forfeited by an illegal or unparseable move. */
  readonly forfeit?: string;
  /** Stopped at the turn limit without a result. */
  readonly truncated: boolean;
  /** The chance outcomes drawn so far (their ids), at the start and mid-game. */
  readonly chance: readonly string[];
  /** Where the match's chance RNG stands: the next chance event draws from here. */
  readonly rng: RngState;
}

/** Too many chance events in a row without a move between them: a world whose chance never settles. */
const CHANCE_RUN_LIMIT = 1000;

/** Every chance event due at `state` resolved, each outcome drawn from `rng` (which advances). */
function settleChance(world: AnyWorld, game: string, state: unknown, rng: Rng, drawn: string[]): unknown {
  for (let run = 0; ; run++) {
    const outcomes = chanceAt(world, state);
    if (outcomes.length === 0) return state;
    if (run >= CHANCE_RUN_LIMIT) fail('WORLD_INVALID', `game "${game}": more than ${CHANCE_RUN_LIMIT} chance events in a row without a move`, { game });
    const outcome = drawChance(outcomes, rng);
    drawn.push(outcome.id);
    state = outcome.state;
  }
}

/**
 * A world match from its deal: every coin of the world's chance comes from `seed`, the setup's first and then every
 * chance event's, in order, from one RNG, so (seed, moves) replays the match exactly.
 */
export function startWorld(game: string, world: AnyWorld, seed: number): WorldMatch {
  const rng = new Rng(seed);
  const chance: string[] = [];
  const state = settleChance(world, game, world.setup(rng), rng, chance);
  return { game, state, moves: 0, notes: [], tries: 0, truncated: false, chance, rng: rng.state };
}

/** Whose turn it is, or undefined once the match is over (a result, a forfeit, or the turn limit). */
export function worldToMove(world: AnyWorld, match: WorldMatch): string | undefined {
  if (match.forfeit !== undefined || match.truncated) return undefined;
  return world.toMove(match.state);
}

/**
 * The prompt of the player to move (the layout is ours): the player's own observation, the legal moves stated, a
 * reminder after an illegal try, and the cue for the move.
 */
export function worldPrompt(world: AnyWorld, match: WorldMatch, player: string, policy: IllegalMovePolicy): string {
  const moves = world.legalMoves(match.state);
  const legal = world.legalText ? world.legalText(match.state, moves) : moves.map((move: unknown) => world.moveText(move)).join(', ');
  const retry = match.tries > 0 && policy.kind === 'retry' ? `That move was not legal; ${policy.retries - match.tries + 1} tries left.\n` : '';
  return `${world.observe(match.state, player)}\nLegal moves: ${legal}\n${retry}Your move:`;
}

/**
 * The match after the player to move wrote `text`. A legal move is applied (and the match stopped at the turn limit);
 * an illegal or unparseable one is retried or forfeits, as `policy` says. A parser that throws, or that returns a
 * move that is not among the legal ones, is WORLD_INVALID naming the game and the turn.
 */
export function playWorldTurn(world: AnyWorld, match: WorldMatch, text: string, policy: IllegalMovePolicy): { match: WorldMatch; note: WorldTurnNote } {
  const player = worldToMove(world, match) ?? fail('WORLD_INVALID', `game "${match.game}": a move was played at turn ${match.notes.length}, after the match ended`, { game: match.game, turn: match.notes.length });
  const turn = match.notes.length;
  const legal = world.legalMoves(match.state);
  if (legal.length === 0) fail('WORLD_INVALID', `game "${match.game}" turn ${turn}: "${player}" is to move but has no legal move`, { game: match.game, turn });
  let parsed: ReturnType<typeof parseMove>;
  try {
    parsed = parseMove(world, text, legal, match.state);
  } catch (error) {
    return fail('WORLD_INVALID', `game "${match.game}" turn ${turn}: its move parser threw on ${JSON.stringify(text.slice(0, 80))} (${(error as Error).message})`, { game: match.game, turn });
  }
  if (parsed.kind === 'move') {
    const moveText = world.moveText(parsed.move);
    if (!legal.some((move: unknown) => world.moveText(move) === moveText)) {
      fail('WORLD_INVALID', `game "${match.game}" turn ${turn}: its parser returned "${moveText}" as legal, but the legal moves are ${legal.map((m: unknown) => world.moveText(m)).join(', ')}`, { game: match.game, turn, move: moveText });
    }
    return applyMove(world, match, player, parsed.move);
  }
  const note: WorldTurnNote = { player, move: null, verdict: parsed.kind, ...(parsed.kind === 'illegal' ? { why: parsed.why } : {}) };
  const retry = policy.kind === 'retry' && match.tries < policy.retries;
  return { match: { ...match, notes: [...match.notes, note], tries: retry ? match.tries + 1 : match.tries, ...(retry ? {} : { forfeit: player }) }, note };
}

/** A scripted player's (or a replayed) move, by its text. */
export function playWorldMoveText(world: AnyWorld, match: WorldMatch, moveText: string): { match: WorldMatch; note: WorldTurnNote } {
  const player = worldToMove(world, match) ?? fail('WORLD_INVALID', `game "${match.game}": move "${moveText}" at turn ${match.notes.length}, after the match ended`, { game: match.game });
  const move = world.legalMoves(match.state).find((m: unknown) => world.moveText(m) === moveText);
  if (move === undefined) fail('WORLD_INVALID', `game "${match.game}" turn ${match.notes.length}: "${moveText}" is not a legal move`, { game: match.game, turn: match.notes.length, move: moveText });
  return applyMove(world, match, player, move);
}

function applyMove(world: AnyWorld, match: WorldMatch, player: string, move: unknown): { match: WorldMatch; note: WorldTurnNote } {
  const applied = world.apply(match.state, move);
  const reward = world.moveReward?.(match.state, move, applied, player);
  const paid = reward === undefined ? {} : typeof reward === 'number' ? { reward } : { rewards: reward as Record<string, number> };
  const note: WorldTurnNote = { player, move: world.moveText(move), verdict: 'legal', ...paid };
  const rng = new Rng(match.rng);
  const chance = [...match.chance];
  const after = settleChance(world, match.game, applied, rng, chance);
  const moves = match.moves + 1;
  const truncated = moves >= world.turnLimit && world.toMove(after) !== undefined;
  return { match: { ...match, state: after, moves, notes: [...match.notes, note], tries: 0, truncated, chance, rng: rng.state }, note };
}

/** The match again from its deal and its turns' notes: what a reward rule and a replay read. */
export function replayWorld(game: string, world: AnyWorld, seed: number, notes: readonly WorldTurnNote[], policy: IllegalMovePolicy): WorldMatch {
  let match = startWorld(game, world, seed);
  for (const note of notes) {
    if (note.verdict === 'legal') match = playWorldMoveText(world, match, note.move!).match;
    else {
      const retry = policy.kind === 'retry' && match.tries < policy.retries;
      match = { ...match, notes: [...match.notes, note], tries: retry ? match.tries + 1 : match.tries, ...(retry ? {} : { forfeit: note.player }) };
    }
  }
  return match;
}

/** What each player gets at the end: the world's payoffs, every payoff 0 at the turn limit, the penalty on a forfeit. */
export function worldPayoffs(world: AnyWorld, match: WorldMatch, policy: IllegalMovePolicy): Record<string, number> {
  const players: readonly string[] = world.players;
  if (match.forfeit !== undefined) return Object.fromEntries(players.map((p) => [p, p === match.forfeit ? policy.penalty : policy.others]));
  if (match.truncated) return Object.fromEntries(players.map((p) => [p, 0]));
  if (world.toMove(match.state) !== undefined) fail('WORLD_INVALID', `game "${match.game}": payoffs asked for before the match ended (turn ${match.notes.length})`, { game: match.game });
  const payoffs = world.payoffs(match.state) as Record<string, number>;
  return Object.fromEntries(players.map((p) => [p, payoffs[p]]));
}

/**
 * A player's result, as the world's utility defines it: in a general-sum game a win above its `par`, a draw at it, a
 * loss below; otherwise a win with more than every other, a loss with less than some other, else a draw.
 */
export function resultOf(payoffs: Readonly<Record<string, number>>, player: string, utility?: Utility): 'win' | 'draw' | 'loss' {
  const mine = payoffs[player];
  if (utility?.kind === 'general-sum') return mine > utility.par ? 'win' : mine < utility.par ? 'loss' : 'draw';
  const others = Object.entries(payoffs).filter(([p]) => p !== player).map(([, v]) => v);
  if (others.every((v) => mine > v)) return 'win';
  if (others.some((v) => v > mine)) return 'loss';
  return 'draw';
}

/** A whole match between scripted players (reference opponents, data for a base): each move from its own coins. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function playScriptedMatch(world: AnyWorld, players: Readonly<Record<string, ScriptedPlayer<any, any, any>>>, seed: number): WorldMatch {
  let match = startWorld(world.id, world, seed);
  const rng = new Rng(deriveSeed(seed, 1));
  for (let player = worldToMove(world, match); player !== undefined; player = worldToMove(world, match)) {
    const move = scriptedMove(world, players[player], match.state, player, rng);
    match = playWorldMoveText(world, match, world.moveText(move)).match;
  }
  return match;
}
