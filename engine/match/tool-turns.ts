import { fail } from '../../core/errors.ts';
import type { FinishReason } from '../../core/protocols/turn-record.ts';
import { deriveSeed } from '../../core/rng.ts';
import { scheduleHash } from '../../core/schedules/spec.ts';
import type { ToolUse } from '../../core/tools/tool-use.ts';
import type { ToolCallNote } from '../../core/tools/tool-calls.ts';
import { stepEnds } from '../../core/trajectory/step-ends.ts';
import { ENV_AUTHOR } from '../../core/trajectory/trajectory.ts';
import { turnTemperature, type Arena } from './arena.ts';
import type { TurnRequest } from './turn-request.ts';
import type { MatchBroadcast } from './match-events.ts';
import type { PlayedTurn } from './played-match.ts';
import { answerCall } from './run-tool.ts';

const SOLO = { kind: 'solo' } as const;
const SOLO_HASH = scheduleHash(SOLO);
/** Seeds a turn's segments after its first: segment k samples from (row seed, this, k). */
const SEGMENT_STREAM = 0x7001;

/** A turn being written: its tokens so far (the policy's, author 0, and the environment's, author 1) and its calls. */
interface Row<Role extends string> {
  readonly request: TurnRequest<Role> & { readonly tools: ToolUse };
  readonly tokens: number[];
  readonly authorIds: number[];
  readonly logprobs: number[];
  readonly calls: ToolCallNote[];
  segments: number;
  finish?: FinishReason;
  row?: number;
  version?: number;
}

/**
 * Whole turns that may call tools, many at once. Every round decodes the rows that are ready (the turns of one
 * policy group together, decoder-wide); a row that stops at a call leaves the batch while its tool runs, and rejoins
 * a later round with the result appended as environment tokens (tokenised once, author `env`, log-probability 0,
 * never trained), so rows waiting on a tool never hold up the others. A segment after the first samples from a seed
 * derived from the row's, so a turn does not depend on which round it was decoded in. Turns end as ordinary turns do
 * (a stop token, a stop string of the turn, the token budget, which counts the environment's tokens too) or at a
 * call past the call budget (finish `calls`). Tokens are streamed as they come, the environment's among them, where
 * someone listens; the callers end the turns. Returns the played turns in request order.
 */
export async function decodeToolTurns<Role extends string>(
  arena: Arena<Role>,
  requests: readonly (TurnRequest<Role> & { readonly tools: ToolUse })[],
  groupOf: (request: TurnRequest<Role>) => string,
  broadcast?: MatchBroadcast,
): Promise<PlayedTurn<Role>[]> {
  const rows: Row<Role>[] = requests.map((request) => ({ request, tokens: [], authorIds: [], logprobs: [], calls: [], segments: 0 }));
  for (const { request } of rows) {
    if (arena.runtime.maxLen - request.promptIds.length < 1) {
      fail('SEQUENCE_TOO_LONG', `match "${request.matchId}" turn ${request.turn} (${request.role}): its prompt of ${request.promptIds.length} tokens leaves no room in ${arena.runtime.maxLen} positions`, {
        matchId: request.matchId,
        turn: request.turn,
      });
    }
    broadcast?.turnStart(request.matchId, request.turn, request.role, request.policy);
  }
  const ready = [...rows];
  const running = new Set<Promise<void>>();
  while (ready.length > 0 || running.size > 0) {
    if (ready.length === 0) {
      await Promise.race(running);
      continue;
    }
    const group = groupOf(ready[0].request);
    const chunk: Row<Role>[] = [];
    for (let i = 0; i < ready.length && chunk.length < arena.runtime.rows; ) {
      if (groupOf(ready[i].request) === group) chunk.push(...ready.splice(i, 1));
      else i += 1;
    }
    await decodeSegments(arena, chunk, broadcast);
    for (const row of chunk) {
      const call = afterSegment(arena, row, broadcast);
      if (!call) continue;
      const answered: Promise<void> = call.then((rejoins) => {
        running.delete(answered);
        if (rejoins) ready.push(row);
      });
      running.add(answered);
    }
  }
  return rows.map((row) => playedTurn(arena, row));
}

/** One segment of every row of the chunk: from its prompt and everything its turn holds so far, up to its next call. */
async function decodeSegments<Role extends string>(arena: Arena<Role>, chunk: readonly Row<Role>[], broadcast?: MatchBroadcast): Promise<void> {
  const room = (row: Row<Role>) => Math.min(row.request.maxTokens - row.tokens.length, arena.runtime.maxLen - row.request.promptIds.length - row.tokens.length);
  const budgets = chunk.map(room);
  const policies = [...new Set(chunk.map((row) => row.request.policy))];
  const onStep = broadcast?.streamer(
    chunk.map(({ request }) => ({ matchId: request.matchId, turn: request.turn, roles: [request.role] })),
    chunk.map((row) => row.tokens.length),
  );
  const { rollouts, versions } = await arena.runtime.generate({
    policies,
    ...(policies.length > 1 ? { rowPolicies: chunk.map((row) => policies.indexOf(row.request.policy)) } : {}),
    prompts: chunk.map((row) => [...row.request.promptIds, ...row.tokens]),
    maxNewTokens: Math.max(...budgets),
    rowMaxNewTokens: budgets,
    rowSeeds: chunk.map((row) => (row.segments === 0 ? row.request.seed : deriveSeed(row.request.seed, SEGMENT_STREAM, row.segments))),
    seed: 0,
    sampling: { temperature: turnTemperature(arena.sampling, chunk[0].request.role), topK: 0, topP: arena.sampling.topP },
    stopTokens: arena.stopTokens,
    stopStrings: chunk.map((row) => [...(row.request.stop ?? []), row.request.tools.format.close]),
    decode: (ids: number[]) => arena.tokenizer.decode(ids),
    ...(onStep ? { onStep } : {}),
  });
  chunk.forEach((row, r) => {
    const rollout = rollouts[r];
    if (row.segments === 0) {
      row.row = r;
      row.version = versions[policies.indexOf(row.request.policy)];
    }
    row.segments += 1;
    row.tokens.push(...rollout.tokens);
    row.authorIds.push(...rollout.tokens.map(() => 0));
    row.logprobs.push(...rollout.logprobs);
    row.finish = rollout.finish;
  });
}

/**
 * What follows a row's latest segment: nothing (the turn is over) or its call's answer, which resolves to whether
 * the row goes on (the answer was appended and room is left).
 */
function afterSegment<Role extends string>(arena: Arena<Role>, row: Row<Role>, broadcast?: MatchBroadcast): Promise<boolean> | undefined {
  const { format } = row.request.tools;
  const segment = row.tokens.slice(row.authorIds.lastIndexOf(1) + 1);
  const stops = new Set(arena.stopTokens);
  const text = arena.tokenizer.decode(segment.filter((id) => !stops.has(id)));
  const called = row.finish === 'stop-sequence' && text.includes(format.close);
  if (!called) {
    if (text.lastIndexOf(format.open) > text.lastIndexOf(format.close)) row.calls.push({ position: row.tokens.length, envTokens: 0, code: 'TOOL_CALL_MALFORMED', unclosed: true });
    return undefined;
  }
  if (row.calls.filter((call) => !call.unclosed).length >= row.request.tools.maxCalls) {
    row.finish = 'calls';
    return undefined;
  }
  return answerCall(row.request.tools, format.parse(text)).then((answer) => {
    const env = arena.tokenizer.encode(format.observation(answer.content));
    const room = Math.min(row.request.maxTokens - row.tokens.length, arena.runtime.maxLen - row.request.promptIds.length - row.tokens.length);
    const fits = env.length < room;
    row.calls.push({
      ...(answer.tool === undefined ? {} : { tool: answer.tool }),
      position: row.tokens.length,
      envTokens: fits ? env.length : 0,
      ...(answer.code === undefined ? {} : { code: answer.code }),
      ...(answer.ms === undefined ? {} : { ms: answer.ms }),
    });
    if (!fits) {
      row.finish = 'length';
      return false;
    }
    broadcast?.environment(row.request.matchId, row.request.turn, row.tokens.length, env, row.request.role, ENV_AUTHOR);
    row.tokens.push(...env);
    row.authorIds.push(...env.map(() => 1));
    row.logprobs.push(...env.map(() => 0));
    return true;
  });
}

function playedTurn<Role extends string>(arena: Arena<Role>, row: Row<Role>): PlayedTurn<Role> {
  const { request } = row;
  const stops = new Set(arena.stopTokens);
  const withEnv = row.authorIds.includes(1);
  const boundary = new Set(arena.stepBoundary);
  return {
    turn: request.turn,
    role: request.role,
    tokens: row.tokens,
    text: arena.tokenizer.decode(row.tokens.filter((id) => !stops.has(id))),
    finish: row.finish ?? 'length',
    promptIds: [...request.promptIds],
    logprobs: row.logprobs,
    authorRoles: withEnv ? [request.role, ENV_AUTHOR as Role] : [request.role],
    authorIds: row.authorIds,
    stepEnds: stepEnds(row.tokens, boundary).filter((t) => row.authorIds[t] === 0),
    toolCalls: row.calls,
    origin: { seed: 0, row: row.row ?? 0, rowSeed: request.seed, schedule: SOLO, scheduleHash: SOLO_HASH, versions: [row.version ?? 0] },
  };
}
