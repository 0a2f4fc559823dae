import { deriveSeed } from '../../core/rng.ts';
import type { CoDecodingProtocol } from '../../core/protocols/co-decoding.ts';
import { scheduleHash } from '../../core/schedules/spec.ts';
import { stepEnds } from '../../core/trajectory/step-ends.ts';
import type { Arena } from './arena.ts';
import type { MatchBroadcast } from './match-events.ts';
import type { MatchSeeds } from './match-seeds.ts';
import type { PlayedTurn } from './played-match.ts';
import type { MatchSlot } from './match-slot.ts';

/**
 * The single turn of co-decoded matches: the seated policies of the protocol's authors step together over one token
 * stream, the schedule naming each token's author. Matches go in decoder-wide chunks; a batch that fits one chunk
 * uses its seeds as given, a larger one derives each chunk's seeds from its first match's position.
 */
export async function playCoDecodedTurns<Role extends string>(
  arena: Arena<Role>,
  protocol: CoDecodingProtocol<Role>,
  slots: readonly MatchSlot<Role>[],
  broadcast?: MatchBroadcast,
): Promise<PlayedTurn<Role>[][]> {
  const rows = arena.runtime.rows;
  const turns: PlayedTurn<Role>[][] = [];
  for (let start = 0; start < slots.length; start += rows) {
    const chunk = slots.slice(start, start + rows);
    const seeds = slots.length <= rows ? chunk[0].seeds : { generation: deriveSeed(chunk[0].seeds.generation, start), schedule: deriveSeed(chunk[0].seeds.schedule, start) };
    turns.push(...(await playChunk(arena, protocol, chunk, seeds, broadcast)).map((turn) => [turn]));
  }
  return turns;
}

async function playChunk<Role extends string>(
  arena: Arena<Role>,
  protocol: CoDecodingProtocol<Role>,
  chunk: readonly MatchSlot<Role>[],
  seeds: MatchSeeds,
  broadcast?: MatchBroadcast,
): Promise<PlayedTurn<Role>[]> {
  const { seats } = chunk[0];
  const prompts = chunk.map((slot) => arena.encodeProblem(slot.problem));
  const spec = protocol.schedule({ seed: seeds.schedule, wordBoundary: arena.wordBoundary, stepBoundary: arena.stepBoundary });
  for (const slot of chunk) broadcast?.turnStart(slot.matchId, 0, protocol.authors[0], seats[protocol.authors[0]]);
  const onStep = broadcast?.streamer(chunk.map((slot) => ({ matchId: slot.matchId, turn: 0, roles: protocol.authors })));
  const { rollouts, versions } = await arena.runtime.generate({
    policies: protocol.authors.map((role) => seats[role]),
    prompts,
    maxNewTokens: arena.sampling.maxNewTokens,
    sampling: { temperature: arena.sampling.temperature, topK: 0, topP: arena.sampling.topP },
    seed: seeds.generation,
    stopTokens: arena.stopTokens,
    schedule: spec,
    partnerLogprobs: protocol.authors.length > 1,
    ...(onStep ? { onStep } : {}),
  });
  const stops = new Set(arena.stopTokens);
  const stepBoundary = new Set(arena.stepBoundary);
  const hash = scheduleHash(spec);
  return chunk.map((slot, row) => {
    const rollout = rollouts[row];
    const turn: PlayedTurn<Role> = {
      turn: 0,
      role: protocol.authors[0],
      tokens: rollout.tokens,
      text: arena.tokenizer.decode(rollout.tokens.filter((id) => !stops.has(id))),
      authors: rollout.authors.map((author) => protocol.authors[author]),
      finish: rollout.finish,
      promptIds: rollout.prompt,
      logprobs: rollout.logprobs,
      ...(rollout.partnerLogprobs ? { partnerLogprobs: rollout.partnerLogprobs } : {}),
      authorRoles: protocol.authors,
      authorIds: rollout.authors,
      stepEnds: stepEnds(rollout.tokens, stepBoundary),
      origin: { seed: seeds.generation, row, schedule: spec, scheduleHash: hash, versions },
    };
    broadcast?.turnEnd(slot.matchId, turn, onStep !== undefined);
    return turn;
  });
}
