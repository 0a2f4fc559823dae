import { scheduleHash, type ScheduleSpec } from '../../../core/schedules/spec.ts';
import type { Trajectory } from '../../../core/trajectory/trajectory.ts';

export const SENIOR = 0;
export const JUNIOR = 1;

/** A tandem trajectory in which each entry of `authors` wrote one token. */
export function tandemTrajectory(authors: readonly number[], overrides: Partial<Trajectory> = {}): Trajectory {
  const schedule: ScheduleSpec = { kind: 'word', p: 0.5, K: 32, seed: 3, boundary: [10] };
  return {
    matchId: 'match-42',
    seed: 3,
    turn: 0,
    promptIds: [1, 2, 3],
    responseIds: authors.map((_, t) => 100 + t),
    authors,
    roles: ['senior', 'junior'],
    logprobs: authors.map(() => -0.5),
    schedule,
    scheduleHash: scheduleHash(schedule),
    stepEnds: authors.length > 0 ? [authors.length - 1] : [],
    outcome: { senior: 1, junior: 1 },
    ...overrides,
  };
}
