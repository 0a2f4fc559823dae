import type { EventStream } from './event-stream.ts';
import type { PlayedMatch } from './played-match.ts';

/** A finished match as its event sequence: start, its tokens, each handoff, the turn's end, verdict, rewards, end. */
export function publishMatch(events: EventStream, gameId: string, match: PlayedMatch, seats: Readonly<Record<string, string>>, judged: string): void {
  const { trajectory } = match;
  const base = { matchId: trajectory.matchId };
  events.publish({ type: 'match-start', ...base, game: gameId, seed: trajectory.seed, seats, problemId: match.problem.id });
  events.publish({
    type: 'tokens',
    ...base,
    turn: 0,
    position: 0,
    tokens: trajectory.responseIds,
    authors: trajectory.authors.map((author) => trajectory.roles[author]),
    text: match.text,
  });
  let position = 0;
  match.transcript.forEach((ply, i) => {
    if (i > 0) events.publish({ type: 'handoff', ...base, turn: 0, position, from: match.transcript[i - 1].role, to: ply.role });
    position += ply.tokens.length;
  });
  events.publish({ type: 'turn-end', ...base, turn: 0, role: judged, tokenCount: trajectory.responseIds.length, finish: match.finish });
  events.publish({ type: 'verdict', ...base, role: judged, answerPresent: match.verdict.answer_present, correct: match.verdict.correct, judge: 'boxed-answer' });
  for (const [role, outcome] of Object.entries(trajectory.outcome)) events.publish({ type: 'reward', ...base, role, outcome });
  events.publish({ type: 'match-end', ...base, outcome: trajectory.outcome });
}
