import { deriveSeed } from '../../core/rng.ts';
import type { Task } from '../../core/tasks/task.ts';
import type { MatchSeeds } from '../match/match-seeds.ts';
import { playMatches, type Arena } from '../match/play-matches.ts';

export interface Validation {
  /** Share of test problems solved under the game's own protocol (tandem accuracy for tandem, solo for GRPO). */
  readonly accuracy: number;
  readonly answerPresent: number;
  readonly problems: number;
}

/** One match per test problem, under the game's protocol, in decoder-wide chunks. */
export async function validate<Role extends string>(arena: Arena<Role>, task: Task, count: number, seeds: MatchSeeds): Promise<Validation> {
  const problems = task.problems('test', count);
  let correct = 0;
  let present = 0;
  for (let start = 0; start < problems.length; start += arena.decoder.batch) {
    const chunk = problems.slice(start, start + arena.decoder.batch);
    const matches = await playMatches(arena, chunk, 1, { generation: deriveSeed(seeds.generation, start), schedule: deriveSeed(seeds.schedule, start) }, `validation/${start}`);
    for (const match of matches) {
      correct += match.verdict.correct ? 1 : 0;
      present += match.verdict.answer_present ? 1 : 0;
    }
  }
  return { accuracy: correct / problems.length, answerPresent: present / problems.length, problems: problems.length };
}
