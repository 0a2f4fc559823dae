import { fail } from '../../core/errors.ts';
import { scheduleHash } from '../../core/schedules/spec.ts';
import { stepEnds } from '../../core/trajectory/step-ends.ts';
import { turnTemperature, type Arena } from './arena.ts';
import type { MatchBroadcast } from './match-events.ts';
import type { PlayedTurn } from './played-match.ts';
import { decodeToolTurns } from './tool-turns.ts';
import type { TurnRequest } from './turn-request.ts';
import type { ToolUse } from '../../core/tools/tool-use.ts';

export type { TurnRequest } from './turn-request.ts';

const SOLO = { kind: 'solo' } as const;
const SOLO_HASH = scheduleHash(SOLO);

/**
 * Generates whole turns of many matches at once (sequential and world turns): the turns of one policy — and of
 * policies the runtime decodes as one batch (adapters over one base) — at one temperature go together in decoder-wide
 * chunks; turns that may call tools go through the tool loop (decodeToolTurns). Returns the played turns in request
 * order.
 */
export async function decodeTurns<Role extends string>(arena: Arena<Role>, requests: readonly TurnRequest<Role>[], broadcast?: MatchBroadcast): Promise<PlayedTurn<Role>[]> {
  const played: PlayedTurn<Role>[] = new Array(requests.length);
  const groupOf = ({ policy, role }: TurnRequest<Role>) => {
    const key = arena.runtime.stackKey?.(policy);
    return `${key === undefined ? `policy:${policy}` : `stack:${key}`}@${turnTemperature(arena.sampling, role)}`;
  };
  const indexed = requests.map((request, i) => ({ request, i }));
  const calling = indexed.filter((entry): entry is { request: TurnRequest<Role> & { tools: ToolUse }; i: number } => entry.request.tools !== undefined);
  if (calling.length > 0) {
    const turns = await decodeToolTurns(arena, calling.map(({ request }) => request), groupOf, broadcast);
    calling.forEach(({ i }, k) => (played[i] = turns[k]));
  }
  const plain = indexed.filter(({ request }) => request.tools === undefined);
  for (const group of new Set(plain.map(({ request }) => groupOf(request)))) {
    const mine = plain.filter(({ request }) => groupOf(request) === group);
    for (let start = 0; start < mine.length; start += arena.runtime.rows) {
      const chunk = mine.slice(start, start + arena.runtime.rows);
      const turns = await decodeChunk(arena, chunk.map(({ request }) => request), broadcast);
      chunk.forEach(({ i }, row) => (played[i] = turns[row]));
    }
  }
  return played;
}

async function decodeChunk<Role extends string>(arena: Arena<Role>, chunk: readonly TurnRequest<Role>[], broadcast?: MatchBroadcast): Promise<PlayedTurn<Role>[]> {
  const maxLen = arena.runtime.maxLen;
  const budgets = chunk.map((request) => {
    const room = maxLen - request.promptIds.length;
    if (room < 1) {
      fail('SEQUENCE_TOO_LONG', `match "${request.matchId}" turn ${request.turn} (${request.role}): its prompt of ${request.promptIds.length} tokens leaves no room in ${maxLen} positions`, {
        matchId: request.matchId,
        turn: request.turn,
      });
    }
    return Math.min(request.maxTokens, room);
  });
  for (const request of chunk) broadcast?.turnStart(request.matchId, request.turn, request.role, request.policy);
  const onStep = broadcast?.streamer(chunk.map((request) => ({ matchId: request.matchId, turn: request.turn, roles: [request.role] })));
  const stopStrings = chunk.map((request) => request.stop ?? []);
  const policies = [...new Set(chunk.map((request) => request.policy))];
  const { rollouts, versions } = await arena.runtime.generate({
    policies,
    ...(policies.length > 1 ? { rowPolicies: chunk.map((request) => policies.indexOf(request.policy)) } : {}),
    prompts: chunk.map((request) => request.promptIds),
    maxNewTokens: Math.max(...budgets),
    rowMaxNewTokens: budgets,
    rowSeeds: chunk.map((request) => request.seed),
    seed: 0,
    sampling: { temperature: turnTemperature(arena.sampling, chunk[0].role), topK: 0, topP: arena.sampling.topP },
    stopTokens: arena.stopTokens,
    ...(stopStrings.some((list) => list.length > 0) ? { stopStrings, decode: (ids: number[]) => arena.tokenizer.decode(ids) } : {}),
    ...(onStep ? { onStep } : {}),
  });
  const stops = new Set(arena.stopTokens);
  const stepBoundary = new Set(arena.stepBoundary);
  return chunk.map((request, row) => {
    const rollout = rollouts[row];
    return {
      turn: request.turn,
      role: request.role,
      tokens: rollout.tokens,
      text: arena.tokenizer.decode(rollout.tokens.filter((id) => !stops.has(id))),
      finish: rollout.finish,
      promptIds: [...request.promptIds],
      logprobs: rollout.logprobs,
      authorRoles: [request.role],
      authorIds: rollout.tokens.map(() => 0),
      stepEnds: stepEnds(rollout.tokens, stepBoundary),
      origin: { seed: 0, row, rowSeed: request.seed, schedule: SOLO, scheduleHash: SOLO_HASH, versions: [versions[policies.indexOf(request.policy)]] },
    };
  });
}
