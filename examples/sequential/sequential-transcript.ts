import type { Problem } from '../../core/tasks/task.ts';

/** One turn as played: its prompt ids, and the generation call it came from (seed, row, width) so it replays. */
export interface PlayedTurn<Role extends string> {
  readonly turn: number;
  readonly role: Role;
  readonly promptIds: readonly number[];
  readonly seed: number;
  readonly row: number;
  readonly width: number;
  readonly tokens: readonly number[];
  readonly text: string;
  readonly finish: 'stop' | 'length' | 'aborted';
}

/** One line of a sequential game's transcripts.jsonl: enough, with the seated policies, to replay the match exactly. */
export interface SequentialTranscriptLine<Role extends string> {
  readonly game: string;
  readonly matchId: string;
  readonly seed: number;
  readonly problem: Problem;
  readonly sampling: { readonly temperature: number; readonly topP: number };
  readonly turns: readonly PlayedTurn<Role>[];
  readonly outcome: Readonly<Record<Role, number>>;
}
