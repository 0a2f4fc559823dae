import { fail } from '../errors.ts';
import { scheduleHash } from '../schedules/spec.ts';
import type { Trajectory } from './trajectory.ts';

/** Checks that a trajectory's per-token arrays line up and that its schedule hash is the one its spec builds. */
export function validateTrajectory(trajectory: Trajectory): Trajectory {
  const where = `match "${trajectory.matchId}" turn ${trajectory.turn}`;
  const invalid = (why: string): never => fail('TRAJECTORY_INVALID', `${where}: ${why}`, { matchId: trajectory.matchId, turn: trajectory.turn });
  const T = trajectory.responseIds.length;

  const perToken: [string, readonly unknown[] | undefined][] = [
    ['authors', trajectory.authors],
    ['logprobs', trajectory.logprobs],
    ['tokenRewards', trajectory.tokenRewards],
    ...(trajectory.partnerLogprobs ?? []).map((row, author): [string, readonly number[]] => [`partnerLogprobs[${author}]`, row]),
  ];
  for (const [field, values] of perToken) {
    if (values !== undefined && values.length !== T) invalid(`${field} has ${values.length} entries for ${T} response tokens`);
  }
  if (trajectory.partnerLogprobs !== undefined && trajectory.partnerLogprobs.length !== trajectory.roles.length) {
    invalid(`partnerLogprobs has ${trajectory.partnerLogprobs.length} rows for ${trajectory.roles.length} authors`);
  }
  const badAuthor = trajectory.authors.findIndex((author) => !(Number.isInteger(author) && author >= 0 && author < trajectory.roles.length));
  if (badAuthor >= 0) invalid(`token ${badAuthor} has author ${trajectory.authors[badAuthor]}, outside the ${trajectory.roles.length} roles`);

  trajectory.stepEnds.forEach((end, i) => {
    if (!(Number.isInteger(end) && end >= 0 && end < T) || (i > 0 && end <= trajectory.stepEnds[i - 1])) {
      invalid(`stepEnds must be ascending token indices below ${T}; entry ${i} is ${end}`);
    }
  });
  if (trajectory.stepRewards !== undefined && trajectory.stepRewards.length !== trajectory.stepEnds.length) {
    invalid(`stepRewards has ${trajectory.stepRewards.length} entries for ${trajectory.stepEnds.length} step ends`);
  }

  for (const role of trajectory.roles) if (!(role in trajectory.outcome)) invalid(`has no outcome reward for role "${role}"`);
  const expectedHash = scheduleHash(trajectory.schedule);
  if (trajectory.scheduleHash !== expectedHash) invalid(`scheduleHash ${trajectory.scheduleHash} does not match its schedule (${expectedHash})`);
  return trajectory;
}
