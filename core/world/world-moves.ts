import { fail } from '../errors.ts';
import type { Rng } from '../rng.ts';
import type { AnyWorld, ChanceOutcome, ParsedMove, PlayerView, ScriptedPlayer } from './world.ts';

/** A move's stable id: the world's `moveId`, else its text. */
export function moveIdOf(world: AnyWorld, move: unknown): string {
  return world.moveId ? world.moveId(move) : world.moveText(move);
}

/** The key of the states `player` cannot tell apart: the world's `informationState`, else its observation's text. */
export function informationStateOf(world: AnyWorld, state: unknown, player: string): string {
  return world.informationState ? world.informationState(state, player) : world.observe(state, player);
}

const WORD = /[\p{L}\p{N}_]/u;

/** Whether `text` holds `move` at `at` as a whole token: no letter or digit running on before or after it. */
function standsAlone(text: string, move: string, at: number): boolean {
  const before = at > 0 && WORD.test(text[at - 1]) && WORD.test(move[0]);
  const after = at + move.length < text.length && WORD.test(text[at + move.length]) && WORD.test(move[move.length - 1]);
  return !before && !after;
}

/**
 * The default parser (ours): the legal move whose text comes first in the answer, standing alone (`1` is not read in
 * `10`), the longer text winning where two start at the same place (case-insensitive). Anything else is unparseable:
 * without a game's own parser there is no telling an illegal move from text that names none.
 */
export function firstLegalMove<Move>(world: AnyWorld, text: string, legal: readonly Move[]): ParsedMove<Move> {
  const answer = text.toLowerCase();
  let best: { at: number; length: number; move: Move } | undefined;
  for (const move of legal) {
    const written = world.moveText(move).toLowerCase();
    if (written.length === 0) continue;
    for (let at = answer.indexOf(written); at >= 0; at = answer.indexOf(written, at + 1)) {
      if (!standsAlone(answer, written, at)) continue;
      if (!best || at < best.at || (at === best.at && written.length > best.length)) best = { at, length: written.length, move };
      break;
    }
  }
  return best ? { kind: 'move', move: best.move } : { kind: 'unparseable' };
}

/** Reads a player's text with the world's parser, or the default one (firstLegalMove). */
export function parseMove(world: AnyWorld, text: string, legal: readonly unknown[], state: unknown): ParsedMove<unknown> {
  return world.parse ? world.parse(text, legal, state) : firstLegalMove(world, text, legal);
}

/** The chance event due at `state`, or none: its outcomes, their probabilities checked (non-negative, summing to 1). */
export function chanceAt(world: AnyWorld, state: unknown): readonly ChanceOutcome<unknown>[] {
  const outcomes = world.chanceOutcomes?.(state) ?? [];
  if (outcomes.length === 0) return outcomes;
  const total = outcomes.reduce((sum: number, o: ChanceOutcome<unknown>) => (o.probability >= 0 ? sum + o.probability : Number.NaN), 0);
  if (!(Math.abs(total - 1) < 1e-9)) fail('WORLD_INVALID', `game "${world.id}": its chance outcomes' probabilities sum to ${total}, not 1 (${outcomes.map((o: ChanceOutcome<unknown>) => `${o.id} ${o.probability}`).join(', ')})`, { game: world.id });
  return outcomes;
}

/** One outcome drawn by its probability: one uniform draw, walked along the outcomes in their order. */
export function drawChance<State>(outcomes: readonly ChanceOutcome<State>[], rng: Rng): ChanceOutcome<State> {
  let draw = rng.next();
  for (const outcome of outcomes) if ((draw -= outcome.probability) < 0) return outcome;
  return outcomes[outcomes.length - 1];
}

/** What a player to move is given: its observation, its information state and the legal moves. */
export function playerView(world: AnyWorld, state: unknown, player: string): PlayerView<unknown> {
  return { player, observation: world.observe(state, player), informationState: informationStateOf(world, state, player), legal: world.legalMoves(state) };
}

/** A scripted player's move: from its view, or from the whole state where it is declared an oracle. */
// biome-ignore lint/suspicious/noExplicitAny: a scripted player plays its own world's state and move types.
export function scriptedMove(world: AnyWorld, scripted: ScriptedPlayer<any, any, any>, state: unknown, player: string, rng: Rng): unknown {
  if (typeof scripted === 'function') return scripted(playerView(world, state, player), rng);
  return scripted.oracle(state, player, world.legalMoves(state), rng);
}
