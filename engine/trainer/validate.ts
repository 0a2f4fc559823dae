import type { Problem, Split, Task } from '../../core/tasks/task.ts';
import { deriveSeed } from '../../core/rng.ts';
import { judgeMetrics } from '../../core/game/judge-agreement.ts';
import type { MatchVerdict } from '../../core/game/rewards.ts';
import type { RotationStep } from '../../core/game/rotations.ts';
import type { Arena } from '../match/arena.ts';
import type { MatchSeeds } from '../match/match-seeds.ts';
import { graderVerdict } from '../match/verdicts.ts';
import { playMatches } from '../match/play-matches.ts';
import type { PlayedTurn } from '../match/played-match.ts';
import { toolMetrics } from './tool-metrics.ts';

export interface Validation {
  /** The split played: `validation` while training selects checkpoints, `test` for held-out comparisons. */
  readonly split: Split;
  /** Share of the split's problems on which the grader judged `role` correct, under the game's own protocol (tandem accuracy for tandem, solo for GRPO). */
  readonly accuracy: number;
  readonly answerPresent: number;
  readonly problems: number;
  readonly role: string;
  /** Per problem, in order: whether the grader judged `role` correct. */
  readonly correct: readonly boolean[];
  /** Per role that judged another's work (Tango's verifier): its agreement with the grader on these matches. */
  readonly judges: Readonly<Record<string, Readonly<Record<string, number | null>>>>;
  /** How `role` used its tools on these matches (toolMetrics: calls, call rate, malformed calls, …); empty without tools. */
  readonly tools?: Readonly<Record<string, number>>;
}

/** One match per problem of `split`, under the game's protocol and the given seats, in decoder-wide chunks. */
export async function validate<Role extends string>(
  arena: Arena<Role>,
  task: Task,
  split: Split,
  count: number,
  seeds: MatchSeeds,
  seats: RotationStep<Role>['seats'],
  role: Role,
): Promise<Validation> {
  const problems: Problem[] = task.problems(split, count);
  const correct: boolean[] = [];
  let present = 0;
  const verdicts: MatchVerdict[][] = [];
  const turns: PlayedTurn[][] = [];
  const rows = arena.runtime.rows;
  for (let start = 0; start < problems.length; start += rows) {
    const chunk = problems.slice(start, start + rows);
    const chunkSeeds = { generation: deriveSeed(seeds.generation, start), schedule: deriveSeed(seeds.schedule, start) };
    const matches = await playMatches(arena, { problems: chunk, copies: 1, seats, seeds: chunkSeeds, label: `validation/${start}` });
    for (const match of matches) {
      verdicts.push([...(match.rewards.verdicts ?? [])]);
      turns.push(match.turns.filter((turn) => turn.role === role));
      const verdict = graderVerdict(match, role);
      correct.push(verdict?.correct === true);
      present += verdict?.answer_present ? 1 : 0;
    }
  }
  const judges = Object.fromEntries(arena.game.roles.map((judge) => [judge, judgeMetrics(verdicts, judge)]).filter(([, metrics]) => Object.keys(metrics).length > 0));
  return { split, accuracy: correct.filter(Boolean).length / problems.length, answerPresent: present / problems.length, problems: problems.length, role, correct, judges, tools: toolMetrics(turns) };
}
