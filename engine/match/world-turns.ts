import { fail } from '../../core/errors.ts';
import { deriveSeed, Rng } from '../../core/rng.ts';
import { scriptedName, type WorldProtocol } from '../../core/protocols/world.ts';
import type { Problem } from '../../core/tasks/task.ts';
import { playWorldMoveText, playWorldTurn, startWorld, worldPrompt, worldToMove, type WorldMatch } from '../../core/world/world-match.ts';
import { dealSeed } from '../../core/world/world-rewards.ts';
import { scriptedMove } from '../../core/world/world-moves.ts';
import type { WorldScene } from '../../core/world/world.ts';
import { scheduleHash } from '../../core/schedules/spec.ts';
import { ENV_AUTHOR } from '../../core/trajectory/trajectory.ts';
import { userTurnText } from '../../plugins/tokenizers/prompt-text.ts';
import type { Arena } from './arena.ts';
import { decodeTurns, type TurnRequest } from './decode-turns.ts';
import type { MatchBroadcast } from './match-events.ts';
import { matchSeed, turnSeed } from './match-seeds.ts';
import type { PlayedTurn } from './played-match.ts';
import type { MatchSlot } from './match-slot.ts';

interface Running<Role extends string> {
  readonly slot: MatchSlot<Role>;
  readonly seed: number;
  world: WorldMatch;
  readonly turns: PlayedTurn<Role>[];
}

const SOLO = { kind: 'solo' } as const;
const SOLO_HASH = scheduleHash(SOLO);

/**
 * Plays world matches to their ends, all at once, whatever turn each stands at: in every round each unfinished match
 * asks the player to move for a move, prompted with that player's own observation (hidden information never enters
 * another player's prompt) put by the arena's prompt rule (one user turn through the chat template where there is one); the model turns of the round are decoded together (across matches and seats, one batch
 * per policy), scripted seats move by their function, and every match's world takes its move. Matches of different
 * lengths leave the batch as they end; the world's turn limit stops an endless one.
 */
export async function playWorldTurns<Role extends string>(arena: Arena<Role>, protocol: WorldProtocol<Role>, slots: readonly MatchSlot<Role>[], broadcast?: MatchBroadcast): Promise<PlayedTurn<Role>[][]> {
  const { world } = protocol;
  const matches: Running<Role>[] = slots.map((slot) => ({ slot, seed: matchSeed(slot.seeds, slot.index), world: startWorld(world.id, world, dealSeed(slot.problem as Problem)), turns: [] }));
  for (;;) {
    const waiting = matches.flatMap((match) => {
      const player = worldToMove(world, match.world) as Role | undefined;
      return player === undefined ? [] : [{ match, player, seat: match.slot.seats[player] }];
    });
    if (waiting.length === 0) return matches.map((match) => match.turns);
    const scripted = waiting.filter(({ seat }) => scriptedName(seat) !== undefined);
    for (const { match, player, seat } of scripted) playScripted(protocol, match, player, seat, broadcast);
    const models = waiting.filter(({ seat }) => scriptedName(seat) === undefined);
    const requests: TurnRequest<Role>[] = models.map(({ match, player, seat }) => ({
      matchId: match.slot.matchId,
      turn: match.turns.length,
      role: player,
      policy: seat,
      // The arena's prompt rule holds for observations too: through the chat template where the tokenizer has one.
      promptIds: arena.encodePrompt(userTurnText(worldPrompt(world, match.world, player, protocol.illegal), arena.tokenizer, arena.chatTemplate)),
      maxTokens: protocol.maxTokens,
      ...(protocol.stop ? { stop: protocol.stop } : {}),
      ...(protocol.tools ? { tools: protocol.tools } : {}),
      seed: turnSeed(match.seed, match.turns.length),
    }));
    const played = await decodeTurns(arena, requests, broadcast);
    for (const [i, { match }] of models.entries()) {
      const { match: next, note } = playWorldTurn(world, match.world, moveText(arena, played[i]), protocol.illegal);
      match.world = next;
      const turn: PlayedTurn<Role> = { ...played[i], world: note, ...sceneOf(protocol, next) };
      match.turns.push(turn);
      broadcast?.turnEnd(match.slot.matchId, turn, broadcast.streaming);
    }
  }
}

/** What a move is read from: the turn's text, or with tools, what the player wrote after the environment's last tokens. */
function moveText<Role extends string>(arena: Arena<Role>, turn: PlayedTurn<Role>): string {
  const env = turn.authorRoles.indexOf(ENV_AUTHOR as Role);
  if (env < 0) return turn.text;
  const stops = new Set(arena.stopTokens);
  return arena.tokenizer.decode(turn.tokens.slice(turn.authorIds.lastIndexOf(env) + 1).filter((id) => !stops.has(id)));
}

/** The world after a move as a spectator sees it, when the game draws it. */
function sceneOf<Role extends string>(protocol: WorldProtocol<Role>, match: WorldMatch): { scene?: WorldScene } {
  const scene = protocol.world.render?.(match.state, null);
  return scene ? { scene } : {};
}

/** A reference opponent's move: no tokens, the move's text as the turn's text, its coins from (match, turn). */
function playScripted<Role extends string>(protocol: WorldProtocol<Role>, match: Running<Role>, player: Role, seat: string, broadcast?: MatchBroadcast): void {
  const { world } = protocol;
  const name = scriptedName(seat) ?? fail('POLICY_INVALID', `seat "${seat}" is not a reference opponent (scripted:<name>)`, { seat });
  const agent = protocol.scripted?.[name] ?? fail('POLICY_INVALID', `game "${world.id}" has no reference opponent "${name}" (it has: ${Object.keys(protocol.scripted ?? {}).join(', ') || 'none'})`, { game: world.id, opponent: name });
  const rng = new Rng(deriveSeed(match.seed, match.turns.length, 7));
  const move = scriptedMove(world, agent, match.world.state, player, rng);
  const { match: next, note } = playWorldMoveText(world, match.world, world.moveText(move));
  match.world = next;
  const turn: PlayedTurn<Role> = {
    turn: match.turns.length,
    role: player,
    tokens: [],
    text: note.move!,
    finish: 'stop',
    promptIds: [],
    logprobs: [],
    authorRoles: [player],
    authorIds: [],
    stepEnds: [],
    origin: { seed: 0, row: 0, schedule: SOLO, scheduleHash: SOLO_HASH, versions: [0] },
    world: note,
    ...sceneOf(protocol, next),
  };
  broadcast?.turnStart(match.slot.matchId, turn.turn, player, seat);
  match.turns.push(turn);
  broadcast?.turnEnd(match.slot.matchId, turn, false);
}
