import type { MatchSeeds } from '../match/match-seeds.ts';
import type { PlayedMatch } from '../match/played-match.ts';
import type { TrainConfig } from './train-config.ts';

/**
 * One match of OUT/transcripts.jsonl: the token ids and their authors, the schedule spec with its hash, the seeds,
 * the row and the sampling settings: with the senior of that step (the checkpoint before it) it replays exactly.
 */
export function transcriptLine(step: number, match: PlayedMatch, seeds: MatchSeeds, config: TrainConfig) {
  const { trajectory } = match;
  return {
    step,
    matchId: trajectory.matchId,
    problemId: match.problem.id,
    row: match.row,
    seeds,
    sampling: { temperature: config.temperature, topP: config.topP, maxNewTokens: config.maxNewTokens },
    roles: trajectory.roles,
    promptIds: trajectory.promptIds,
    responseIds: trajectory.responseIds,
    authors: trajectory.authors,
    logprobs: trajectory.logprobs,
    schedule: trajectory.schedule,
    scheduleHash: trajectory.scheduleHash,
    outcome: trajectory.outcome,
    answer_present: match.verdict.answer_present,
    correct: match.verdict.correct,
    finish: match.finish,
    text: match.text,
  };
}
