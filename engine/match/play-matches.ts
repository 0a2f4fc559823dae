import { match } from 'ts-pattern';
import type { MatchState } from '../../core/game/match-state.ts';
import type { RotationStep } from '../../core/game/rotations.ts';
import type { Problem } from '../../core/tasks/task.ts';
import type { Arena } from './arena.ts';
import { checkedRewards } from './checked-rewards.ts';
import { playCoDecodedTurns } from './co-decoded-turns.ts';
import type { MatchBroadcast } from './match-events.ts';
import { matchSeed, type MatchSeeds } from './match-seeds.ts';
import type { MatchSlot } from './match-slot.ts';
import type { PlayedMatch, PlayedTurn } from './played-match.ts';
import { playSequentialTurns } from './sequential-turns.ts';
import { playWorldTurns } from './world-turns.ts';

/** One batch of matches: `copies` of every problem (problem-major: a group is contiguous), all with the same seats. */
export interface MatchBatch<Role extends string = string> {
  readonly problems: readonly Problem[];
  readonly copies: number;
  readonly seats: RotationStep<Role>['seats'];
  readonly seeds: MatchSeeds;
  /** Match ids are `${label}/${problem id}/${copy}`. */
  readonly label: string;
  /** The matches of a group share their first this many turns (sequential protocols). */
  readonly sharedTurns?: number;
  readonly broadcast?: MatchBroadcast;
}


/**
 * Plays a batch of matches of the arena's game, both protocol families through one engine: every decoding call steps
 * all the rows one tuple of policies is writing, across matches and roles. Then each match is scored by the game's
 * reward rule and published.
 */
export async function playMatches<Role extends string>(arena: Arena<Role>, batch: MatchBatch<Role>): Promise<PlayedMatch<Role>[]> {
  const slots: MatchSlot<Role>[] = batch.problems.flatMap((problem, p) =>
    Array.from({ length: batch.copies }, (_, copy) => ({ matchId: `${batch.label}/${problem.id}/${copy}`, index: p * batch.copies + copy, problem, seeds: batch.seeds, seats: batch.seats })),
  );
  batch.broadcast?.start(
    slots.map((slot) => ({ matchId: slot.matchId, seats: slot.seats, problem: slot.problem })),
    batch.seeds.generation,
  );
  const transcripts = await match(arena.game.protocol)
    .with({ family: 'co-decoding' }, (protocol) => playCoDecodedTurns(arena, protocol, slots, batch.broadcast))
    .with({ family: 'sequential' }, (protocol) => playSequentialTurns(arena, protocol, slots, { copies: batch.copies, sharedTurns: batch.sharedTurns ?? 0 }, batch.broadcast))
    .with({ family: 'world' }, (protocol) => playWorldTurns(arena, protocol, slots, batch.broadcast))
    .exhaustive();
  return Promise.all(slots.map((slot, i) => scoreMatch(arena, slot, transcripts[i], batch.broadcast)));
}

async function scoreMatch<Role extends string>(arena: Arena<Role>, slot: MatchSlot<Role>, turns: readonly PlayedTurn<Role>[], broadcast?: MatchBroadcast): Promise<PlayedMatch<Role>> {
  const seed = arena.game.protocol.family === 'co-decoding' ? slot.seeds.generation : matchSeed(slot.seeds, slot.index);
  const state: MatchState<Role, Problem> = { matchId: slot.matchId, seed, problem: slot.problem, transcript: turns, finished: true };
  const rewards = await checkedRewards(arena.game, state);
  const played: PlayedMatch<Role> = { matchId: slot.matchId, problem: slot.problem, seed, index: slot.index, seats: slot.seats, turns, rewards };
  broadcast?.matchEnd(played);
  return played;
}
