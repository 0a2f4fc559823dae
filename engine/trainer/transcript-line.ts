import type { MatchSeeds } from '../match/match-seeds.ts';
import type { PlayedMatch } from '../match/played-match.ts';
import type { TrainConfig } from './train-config.ts';

export interface MatchAdvantage {
  readonly policy: string;
  readonly advantage: number;
  readonly dropped: boolean;
}

/**
 * One match of OUT/transcripts.jsonl: the seats, and per turn its prompt and response ids, who wrote each token,
 * the sampling log-probabilities, how it ended and where it came from (seed, row, schedule with its hash); then what
 * the reward rule paid and judged. With the policies of that step (the checkpoint before it) it replays exactly.
 */
export function transcriptLine(
  step: number,
  match: PlayedMatch,
  seeds: MatchSeeds,
  config: Pick<TrainConfig, 'temperature' | 'topP' | 'maxNewTokens'>,
  advantages: Readonly<Record<string, MatchAdvantage>> = {},
) {
  return {
    step,
    matchId: match.matchId,
    problemId: match.problem.id,
    prompt: match.problem.prompt,
    answer: match.problem.answer,
    index: match.index,
    seed: match.seed,
    seeds,
    sampling: { temperature: config.temperature, topP: config.topP, maxNewTokens: config.maxNewTokens },
    seats: match.seats,
    turns: match.turns.map((turn) => ({
      turn: turn.turn,
      role: turn.role,
      roles: turn.authorRoles,
      promptIds: turn.promptIds,
      responseIds: turn.tokens,
      authors: turn.authorIds,
      logprobs: turn.logprobs,
      finish: turn.finish,
      stepEnds: turn.stepEnds,
      text: turn.text,
      ...(turn.world ? { world: turn.world } : {}),
      ...(turn.scene ? { scene: turn.scene } : {}),
      ...turn.origin,
    })),
    outcome: match.rewards.outcome,
    ...(match.rewards.steps ? { steps: match.rewards.steps } : {}),
    ...(match.rewards.labels ? { labels: match.rewards.labels } : {}),
    verdicts: match.rewards.verdicts ?? [],
    /** Per role a policy learned from: its mean advantage in this match, and whether the rollout was dropped. */
    advantages,
  };
}

export type TranscriptLine = ReturnType<typeof transcriptLine>;
