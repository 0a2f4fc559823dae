import type { MatchVerdict } from '../../core/game/rewards.ts';
import { GRADER_JUDGE } from '../../core/grading/verdict.ts';
import type { PlayedMatch } from './played-match.ts';

/** The grader's verdict on a role's final answer in a match, if the reward rule had one judged. */
export function graderVerdict(match: PlayedMatch, role: string): MatchVerdict | undefined {
  return match.rewards.verdicts?.find((verdict) => verdict.role === role && verdict.judge === GRADER_JUDGE && verdict.step === undefined);
}
