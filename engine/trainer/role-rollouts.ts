import type { RolloutRewards } from '../../core/advantages/estimator.ts';
import type { Trajectory } from '../../core/trajectory/trajectory.ts';
import type { PlayedMatch, PlayedTurn } from '../match/played-match.ts';

/**
 * A role's part of one match, as learning sees it: the turns it writes in (whole turns: a co-decoded turn with its
 * partner's tokens too), their tokens concatenated in order, and what the reward rule paid the role.
 */
export interface RoleRollout {
  readonly match: PlayedMatch;
  readonly role: string;
  readonly turns: readonly PlayedTurn[];
  readonly rewards: RolloutRewards;
}

/** Every match's rollout of `role`, in match order. */
export function roleRollouts(matches: readonly PlayedMatch[], role: string): RoleRollout[] {
  return matches.map((match) => {
    const turns = match.turns.filter((turn) => turn.authorRoles.includes(role));
    return {
      match,
      role,
      turns,
      rewards: {
        outcome: match.rewards.outcome[role],
        tokens: turns.reduce((sum, turn) => sum + turn.tokens.length, 0),
        steps: match.rewards.steps?.[role] ?? [],
        labels: match.rewards.labels?.[role] ?? {},
      },
    };
  });
}

/** A played turn as the learner's trajectory (token ids, authors, sampling logprobs, schedule, outcome). */
export function trajectoryOf(match: PlayedMatch, turn: PlayedTurn): Trajectory {
  return {
    matchId: match.matchId,
    seed: match.seed,
    turn: turn.turn,
    promptIds: turn.promptIds,
    responseIds: turn.tokens,
    authors: turn.authorIds,
    roles: turn.authorRoles,
    logprobs: turn.logprobs,
    ...(turn.partnerLogprobs ? { partnerLogprobs: turn.partnerLogprobs } : {}),
    schedule: turn.origin.schedule,
    scheduleHash: turn.origin.scheduleHash,
    stepEnds: turn.stepEnds,
    outcome: match.rewards.outcome,
  };
}

/** Splits a per-token value over a rollout's turns, in order: the part of `values` each turn's tokens cover. */
export function perTurn<T>(rollout: RoleRollout, values: readonly T[]): T[][] {
  let offset = 0;
  return rollout.turns.map((turn) => {
    const part = values.slice(offset, offset + turn.tokens.length);
    offset += turn.tokens.length;
    return part;
  });
}

/** Problem-major groups of `size` consecutive items. */
export function groupsOf<T>(items: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, g) => items.slice(g * size, (g + 1) * size));
}
