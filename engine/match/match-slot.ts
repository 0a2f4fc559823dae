import type { RotationStep } from '../../core/game/rotations.ts';
import type { Problem } from '../../core/tasks/task.ts';
import type { MatchSeeds } from './match-seeds.ts';

/** A match before it is played: who plays it, on what, from which seed. */
export interface MatchSlot<Role extends string = string> {
  readonly matchId: string;
  readonly index: number;
  readonly problem: Problem;
  readonly seeds: MatchSeeds;
  readonly seats: RotationStep<Role>['seats'];
}
