import type { Problem, Task } from '../../core/tasks/task.ts';
import { deriveSeed } from '../../core/rng.ts';
import type { RotationStep } from '../../core/game/rotations.ts';
import type { Arena } from '../match/arena.ts';
import type { MatchSeeds } from '../match/match-seeds.ts';
import { graderVerdict } from '../match/verdicts.ts';
import { playMatches } from '../match/play-matches.ts';

export interface Validation {
  /** Share of test problems on which the grader judged `role` correct, under the game's own protocol (tandem accuracy for tandem, solo for GRPO). */
  readonly accuracy: number;
  readonly answerPresent: number;
  readonly problems: number;
  readonly role: string;
  /** Per test problem, in order: whether the grader judged `role` correct. */
  readonly correct: readonly boolean[];
}

/** One match per test problem, under the game's protocol and the given seats, in decoder-wide chunks. */
export async function validate<Role extends string>(
  arena: Arena<Role>,
  task: Task,
  count: number,
  seeds: MatchSeeds,
  seats: RotationStep<Role>['seats'],
  role: Role,
): Promise<Validation> {
  const problems: Problem[] = task.problems('test', count);
  const correct: boolean[] = [];
  let present = 0;
  const rows = arena.decoders.rows;
  for (let start = 0; start < problems.length; start += rows) {
    const chunk = problems.slice(start, start + rows);
    const chunkSeeds = { generation: deriveSeed(seeds.generation, start), schedule: deriveSeed(seeds.schedule, start) };
    const matches = await playMatches(arena, { problems: chunk, copies: 1, seats, seeds: chunkSeeds, label: `validation/${start}` });
    for (const match of matches) {
      const verdict = graderVerdict(match, role);
      correct.push(verdict?.correct === true);
      present += verdict?.answer_present ? 1 : 0;
    }
  }
  return { accuracy: correct.filter(Boolean).length / problems.length, answerPresent: present / problems.length, problems: problems.length, role, correct };
}
