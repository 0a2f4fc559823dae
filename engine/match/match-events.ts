import type { EventStream } from './event-stream.ts';
import type { PlayedMatch } from './played-match.ts';

export interface MatchOpening {
  readonly matchId: string;
  readonly problem: { readonly id: string };
}

/** How a match ended, as its last events tell it. */
export interface MatchClosing {
  readonly matchId: string;
  readonly tokenCount: number;
  readonly finish: 'stop' | 'length' | 'aborted';
  readonly verdict: { readonly answer_present: boolean; readonly correct: boolean };
  readonly outcome: Readonly<Record<string, number>>;
}

/** The matches of one generation batch, row by row, as they are about to be played. */
export interface MatchStream {
  start(matches: readonly MatchOpening[], seed: number): void;
  /** The decoder's streamer (generate's onStep); absent when nobody listens. */
  readonly onStep?: (step: number, tokens: Int32Array, authors: Int32Array) => void | Promise<void>;
}

/**
 * Publishes co-decoded matches as they are played: each start before decoding, its tokens one at a time with a
 * handoff wherever the author changes (when someone listens; otherwise one event per ply at the end), then the
 * turn's end, the verdict, the rewards and the end once graded.
 */
export class MatchBroadcast implements MatchStream {
  readonly onStep?: MatchStream['onStep'];
  private matchIds: string[] = [];
  private streamed: number[] = [];
  private lastAuthor: number[] = [];

  constructor(
    private readonly events: EventStream,
    private readonly gameId: string,
    private readonly seats: Readonly<Record<string, string>>,
    private readonly authors: readonly string[],
    private readonly tokenText: (id: number) => string,
    /** Wait this long after each decoded step: a match watched at reading speed. 0 in training. */
    paceMs = 0,
  ) {
    if (!events.live) return;
    this.onStep =
      paceMs > 0
        ? (_step, tokens, authors) => {
            this.stream(tokens, authors);
            return new Promise((resolve) => setTimeout(resolve, paceMs));
          }
        : (_step, tokens, authors) => this.stream(tokens, authors);
  }

  start(matches: readonly MatchOpening[], seed: number): void {
    this.matchIds = matches.map((match) => match.matchId);
    this.streamed = matches.map(() => 0);
    this.lastAuthor = matches.map(() => -1);
    for (const { matchId, problem } of matches) this.events.publish({ type: 'match-start', matchId, game: this.gameId, seed, seats: this.seats, problemId: problem.id });
  }

  /** The rest of a played match, once graded; `judged` is the role its verdict is about. */
  finish(match: PlayedMatch, judged: string): void {
    const { trajectory } = match;
    if (!this.onStep) this.publishPlies(match);
    this.close({ matchId: trajectory.matchId, tokenCount: trajectory.responseIds.length, finish: match.finish, verdict: match.verdict, outcome: trajectory.outcome }, judged);
  }

  /** The turn's end, the verdict on `judged`, each role's reward and the match's end. */
  close(match: MatchClosing, judged: string): void {
    const base = { matchId: match.matchId };
    this.events.publish({ type: 'turn-end', ...base, turn: 0, role: judged, tokenCount: match.tokenCount, finish: match.finish });
    this.events.publish({ type: 'verdict', ...base, role: judged, answerPresent: match.verdict.answer_present, correct: match.verdict.correct, judge: 'boxed-answer' });
    for (const [role, outcome] of Object.entries(match.outcome)) this.events.publish({ type: 'reward', ...base, role, outcome });
    this.events.publish({ type: 'match-end', ...base, outcome: match.outcome });
  }

  private stream(tokens: Int32Array, authors: Int32Array): void {
    for (let row = 0; row < this.matchIds.length; row++) {
      const token = tokens[row];
      if (token < 0) continue;
      const matchId = this.matchIds[row];
      const author = authors[row];
      const position = this.streamed[row];
      const previous = this.lastAuthor[row];
      if (previous >= 0 && previous !== author) this.events.publish({ type: 'handoff', matchId, turn: 0, position, from: this.authors[previous], to: this.authors[author] });
      this.events.publish({ type: 'tokens', matchId, turn: 0, position, tokens: [token], authors: [this.authors[author]], text: this.tokenText(token) });
      this.streamed[row] = position + 1;
      this.lastAuthor[row] = author;
    }
  }

  private publishPlies(match: PlayedMatch): void {
    const matchId = match.trajectory.matchId;
    let position = 0;
    match.transcript.forEach((ply, i) => {
      if (i > 0) this.events.publish({ type: 'handoff', matchId, turn: 0, position, from: match.transcript[i - 1].role, to: ply.role });
      this.events.publish({ type: 'tokens', matchId, turn: 0, position, tokens: ply.tokens, authors: ply.tokens.map(() => ply.role), text: ply.text });
      position += ply.tokens.length;
    });
  }
}

/** Each token's text on its own (stop tokens read as nothing), decoded once per id. */
export function tokenTexts(tokenizer: { decode(ids: number[]): string }, stopTokens: readonly number[]): (id: number) => string {
  const stops = new Set(stopTokens);
  const known = new Map<number, string>();
  return (id) => {
    let text = known.get(id);
    if (text === undefined) {
      text = stops.has(id) ? '' : tokenizer.decode([id]);
      known.set(id, text);
    }
    return text;
  };
}
