import type { MatchState } from '../../core/game/match-state.ts';
import { pendingTurn, recordTurn, startTurns, type PendingTurn, type SequentialProtocol, type SequentialState } from '../../core/protocols/sequential.ts';
import type { Problem } from '../../core/tasks/task.ts';
import type { Arena } from './arena.ts';
import { decodeTurns, type TurnRequest } from './decode-turns.ts';
import type { MatchBroadcast } from './match-events.ts';
import { matchSeed, turnSeed } from './match-seeds.ts';
import type { PlayedTurn } from './played-match.ts';
import type { MatchSlot } from './match-slot.ts';

interface Running<Role extends string> {
  readonly slot: MatchSlot<Role>;
  readonly seed: number;
  turns: SequentialState<Role>;
}

interface Waiting<Role extends string> {
  readonly match: Running<Role>;
  readonly pending: PendingTurn<Role, Problem>;
  readonly promptIds: number[];
  readonly policy: string;
}

/**
 * Plays sequential matches turn by turn, all at once: in every round each match waiting on a turn renders its prompt
 * from what the acting role may see (the game's view), and all waiting turns of one policy — across matches and
 * roles — are generated together in decoder-wide batches. Each turn samples from its own seed (match seed, turn), so
 * where it sat in a batch does not change it. With `sharedTurns` k, the first match of each group plays the first k
 * turns alone and the rest of its group continues from copies of them.
 */
export async function playSequentialTurns<Role extends string>(
  arena: Arena<Role>,
  protocol: SequentialProtocol<Role, Problem>,
  slots: readonly MatchSlot<Role>[],
  groups: { readonly copies: number; readonly sharedTurns: number },
  broadcast?: MatchBroadcast,
): Promise<PlayedTurn<Role>[][]> {
  const matches: Running<Role>[] = slots.map((slot) => ({ slot, seed: matchSeed(slot.seeds, slot.index), turns: startTurns(protocol) }));
  const shared = groups.sharedTurns;
  if (shared > 0) {
    const leaders = matches.filter((_, i) => i % groups.copies === 0);
    await playRounds(arena, protocol, leaders, (match) => match.turns.played.length < shared, broadcast);
    for (const [i, match] of matches.entries()) {
      if (i % groups.copies === 0) continue;
      const leader = matches[i - (i % groups.copies)];
      match.turns = leader.turns;
      for (const turn of leader.turns.played) {
        broadcast?.turnStart(match.slot.matchId, turn.turn, turn.role, match.slot.seats[turn.role]);
        broadcast?.turnEnd(match.slot.matchId, turn as PlayedTurn<Role>, false);
      }
    }
  }
  await playRounds(arena, protocol, matches, () => true, broadcast);
  return matches.map((match) => match.turns.played as PlayedTurn<Role>[]);
}

async function playRounds<Role extends string>(
  arena: Arena<Role>,
  protocol: SequentialProtocol<Role, Problem>,
  matches: readonly Running<Role>[],
  mayPlay: (match: Running<Role>) => boolean,
  broadcast?: MatchBroadcast,
): Promise<void> {
  for (;;) {
    const waiting = matches.flatMap((match) => (mayPlay(match) ? waitingTurn(arena, protocol, match) : []));
    if (waiting.length === 0) return;
    const requests: TurnRequest<Role>[] = waiting.map(({ match, pending, promptIds, policy }) => ({
      matchId: match.slot.matchId,
      turn: match.turns.played.length,
      role: pending.spec.role,
      policy,
      promptIds,
      maxTokens: pending.spec.maxTokens,
      ...(pending.spec.stop ? { stop: pending.spec.stop } : {}),
      ...(pending.spec.tools ? { tools: pending.spec.tools } : {}),
      seed: turnSeed(match.seed, match.turns.played.length),
    }));
    const played = await decodeTurns(arena, requests, broadcast);
    for (const [i, { match }] of waiting.entries()) {
      match.turns = recordTurn(protocol, match.turns, played[i]);
      broadcast?.turnEnd(match.slot.matchId, played[i], broadcast.streaming);
    }
  }
}

/** The match's next turn with its prompt, rendered from the acting role's view of the turns so far; none when it is over. */
function waitingTurn<Role extends string>(arena: Arena<Role>, protocol: SequentialProtocol<Role, Problem>, match: Running<Role>): Waiting<Role>[] {
  if (match.turns.current === undefined) return [];
  const actor = protocol.turns[match.turns.current].role;
  const state: MatchState<Role, Problem> = { matchId: match.slot.matchId, seed: match.seed, problem: match.slot.problem, transcript: match.turns.played, finished: false };
  const seen = arena.game.view(state, actor).transcript;
  const pending = pendingTurn(protocol, { ...match.turns, played: seen }, arena.prompted(match.slot.problem));
  if (!pending) return [];
  return [{ match, pending, promptIds: arena.encodePrompt(pending.prompt), policy: match.slot.seats[actor] }];
}
