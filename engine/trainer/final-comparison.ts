import { writtenHow } from '../../core/protocols/protocol.ts';
import { bootstrapMean, type BootstrapEstimate } from '../../core/metrics/bootstrap.ts';
import type { RotationStep } from '../../core/game/rotations.ts';
import type { Task } from '../../core/tasks/task.ts';
import type { Arena } from '../match/arena.ts';
import type { MatchSeeds } from '../match/match-seeds.ts';
import { validate } from './validate.ts';

/** How the trained policies do against where they started, on the same held-out matches. */
export interface FinalComparison {
  /** The role whose correctness is compared (the game's `validateOn`). */
  readonly role: string;
  /** The policy seated in that role, trained on one side and as it started on the other. */
  readonly policy: string;
  /** `solo`, or `co-written with <roles>` (the game's protocol writes the role's answer with others). */
  readonly written: string;
  /** The split played: always the held-out test split. */
  readonly split: 'test';
  readonly problems: number;
  /** Share of problems judged correct, with its bootstrap SE over problems. */
  readonly trained: BootstrapEstimate;
  readonly start: BootstrapEstimate;
  /** trained − start, paired by problem (the same problems, seeds and coins on both sides). */
  readonly difference: BootstrapEstimate;
  /** Where the role may call tools: how it used them, trained and at the start (toolMetrics). */
  readonly tools?: { readonly trained: Readonly<Record<string, number>>; readonly start: Readonly<Record<string, number>> };
}

const RESAMPLES = 2000;

/**
 * The end-of-run summary: one match per held-out test problem played by the trained policies and again by the
 * policies as they started (same seeds, so the same coins and the same sampling streams), the grader's verdict on the
 * game's validated role compared, with bootstrap SEs (2,000 resamples; ours).
 */
export async function compareWithStart(
  trained: Arena,
  start: Arena,
  task: Task,
  problems: number,
  seeds: MatchSeeds,
  seats: RotationStep['seats'],
  role: string,
): Promise<FinalComparison> {
  const after = await validate(trained, task, 'test', problems, seeds, seats, role);
  const before = await validate(start, task, 'test', problems, seeds, seats, role);
  const as01 = (values: readonly boolean[]) => values.map((value) => (value ? 1 : 0));
  const estimate = (values: readonly number[]) => bootstrapMean([values], { resamples: RESAMPLES, seed: seeds.generation });
  return {
    role,
    policy: seats[role],
    written: writtenHow(trained.game.protocol, role),
    split: 'test',
    problems: after.problems,
    trained: estimate(as01(after.correct)),
    start: estimate(as01(before.correct)),
    difference: estimate(after.correct.map((correct, i) => Number(correct) - Number(before.correct[i]))),
    ...(after.tools && before.tools && Object.keys(after.tools).length > 0 ? { tools: { trained: after.tools, start: before.tools } } : {}),
  };
}
