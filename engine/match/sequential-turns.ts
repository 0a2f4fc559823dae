import { fail } from '../../core/errors.ts';
import type { MatchState } from '../../core/game/match-state.ts';
import { pendingTurn, recordTurn, startTurns, type PendingTurn, type SequentialProtocol, type SequentialState } from '../../core/protocols/sequential.ts';
import { scheduleHash } from '../../core/schedules/spec.ts';
import type { Problem } from '../../core/tasks/task.ts';
import { stepEnds } from '../../core/trajectory/step-ends.ts';
import type { Arena } from './arena.ts';
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

const SOLO = { kind: 'solo' } as const;
const SOLO_HASH = scheduleHash(SOLO);

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
    // Turns of one policy go together, and so do those of policies the runtime decodes as one batch (adapters over one base).
    const groupOf = (policy: string) => {
      const key = arena.runtime.stackKey?.(policy);
      return key === undefined ? `policy:${policy}` : `stack:${key}`;
    };
    for (const group of new Set(waiting.map((w) => groupOf(w.policy)))) {
      const mine = waiting.filter((w) => groupOf(w.policy) === group);
      for (let start = 0; start < mine.length; start += arena.runtime.rows) await playChunk(arena, protocol, mine.slice(start, start + arena.runtime.rows), broadcast);
    }
  }
}

/** The match's next turn with its prompt, rendered from the acting role's view of the turns so far; none when it is over. */
function waitingTurn<Role extends string>(arena: Arena<Role>, protocol: SequentialProtocol<Role, Problem>, match: Running<Role>): Waiting<Role>[] {
  if (match.turns.current === undefined) return [];
  const actor = protocol.turns[match.turns.current].role;
  const state: MatchState<Role, Problem> = { matchId: match.slot.matchId, seed: match.seed, problem: match.slot.problem, transcript: match.turns.played, finished: false };
  const seen = arena.game.view(state, actor).transcript;
  const pending = pendingTurn(protocol, { ...match.turns, played: seen }, arena.prompted(match.slot.problem))!;
  return [{ match, pending, promptIds: arena.encodePrompt(pending.prompt), policy: match.slot.seats[actor] }];
}

async function playChunk<Role extends string>(arena: Arena<Role>, protocol: SequentialProtocol<Role, Problem>, chunk: readonly Waiting<Role>[], broadcast?: MatchBroadcast): Promise<void> {
  const maxLen = arena.runtime.maxLen;
  const budgets = chunk.map(({ match, pending, promptIds }) => {
    const room = maxLen - promptIds.length;
    if (room < 1) {
      fail('SEQUENCE_TOO_LONG', `match "${match.slot.matchId}" turn ${match.turns.played.length} (${pending.spec.role}): its prompt of ${promptIds.length} tokens leaves no room in ${maxLen} positions`, {
        matchId: match.slot.matchId,
        turn: match.turns.played.length,
      });
    }
    return Math.min(pending.spec.maxTokens, room);
  });
  const seeds = chunk.map(({ match }) => turnSeed(match.seed, match.turns.played.length));
  for (const { match, pending } of chunk) broadcast?.turnStart(match.slot.matchId, match.turns.played.length, pending.spec.role, match.slot.seats[pending.spec.role]);
  const onStep = broadcast?.streamer(chunk.map(({ match, pending }) => ({ matchId: match.slot.matchId, turn: match.turns.played.length, roles: [pending.spec.role] })));
  const stopStrings = chunk.map((w) => w.pending.spec.stop ?? []);
  const policies = [...new Set(chunk.map((w) => w.policy))];
  const { rollouts, versions } = await arena.runtime.generate({
    policies,
    ...(policies.length > 1 ? { rowPolicies: chunk.map((w) => policies.indexOf(w.policy)) } : {}),
    prompts: chunk.map((w) => w.promptIds),
    maxNewTokens: Math.max(...budgets),
    rowMaxNewTokens: budgets,
    rowSeeds: seeds,
    seed: 0,
    sampling: { temperature: arena.sampling.temperature, topK: 0, topP: arena.sampling.topP },
    stopTokens: arena.stopTokens,
    ...(stopStrings.some((list) => list.length > 0) ? { stopStrings, decode: (ids: number[]) => arena.tokenizer.decode(ids) } : {}),
    ...(onStep ? { onStep } : {}),
  });
  const stops = new Set(arena.stopTokens);
  const stepBoundary = new Set(arena.stepBoundary);
  for (const [row, { match, pending, promptIds }] of chunk.entries()) {
    const rollout = rollouts[row];
    const turn: PlayedTurn<Role> = {
      turn: match.turns.played.length,
      role: pending.spec.role,
      tokens: rollout.tokens,
      text: arena.tokenizer.decode(rollout.tokens.filter((id) => !stops.has(id))),
      finish: rollout.finish,
      promptIds,
      logprobs: rollout.logprobs,
      authorRoles: [pending.spec.role],
      authorIds: rollout.tokens.map(() => 0),
      stepEnds: stepEnds(rollout.tokens, stepBoundary),
      origin: { seed: 0, row, rowSeed: seeds[row], schedule: SOLO, scheduleHash: SOLO_HASH, versions: [versions[policies.indexOf(match.slot.seats[pending.spec.role])]] },
    };
    match.turns = recordTurn(protocol, match.turns, turn);
    broadcast?.turnEnd(match.slot.matchId, turn, onStep !== undefined);
  }
}
