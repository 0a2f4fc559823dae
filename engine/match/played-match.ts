import type { TurnRecord } from '../../core/protocols/turn-record.ts';
import type { Trajectory } from '../../core/trajectory/trajectory.ts';
import type { Verdict } from '../../core/grading/verdict.ts';
import type { Problem } from '../../core/tasks/task.ts';

/** One finished match of a step: its trajectory, the judge's verdict, and where it sat in the generation batch. */
export interface PlayedMatch {
  readonly problem: Problem;
  readonly trajectory: Trajectory;
  readonly transcript: readonly TurnRecord<string>[];
  readonly text: string;
  readonly verdict: Verdict;
  readonly finish: 'stop' | 'length' | 'aborted';
  /** Row of the generation batch: with the generation seed and the schedule spec it replays the match exactly. */
  readonly row: number;
}
