import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import { specialTokens } from '../../plugins/tokenizers/special-tokens.ts';
import type { EventStream } from './event-stream.ts';
import type { PlayedMatch, PlayedTurn } from './played-match.ts';

/** A match about to be played, as its opening event tells it. */
export interface MatchOpening {
  readonly matchId: string;
  readonly seats: Readonly<Record<string, string>>;
  readonly problem: { readonly id: string; readonly prompt?: string; readonly answer?: string };
}

/** What row r of one generation call writes: turn `turn` of match `matchId`, author index a being `roles[a]`. */
export interface StreamRow {
  readonly matchId: string;
  readonly turn: number;
  readonly roles: readonly string[];
}

/** What the end of a turn publishes. */
export type EndedTurn = Pick<PlayedTurn, 'turn' | 'role' | 'tokens' | 'text' | 'finish' | 'authorIds' | 'authorRoles' | 'stepEnds' | 'world' | 'scene'>;

/** The decoder's streamer for one generation call (generate's onStep). */
export type StepStreamer = (step: number, tokens: Int32Array, authors: Int32Array) => void | Promise<void>;

/**
 * Publishes matches as they are played: each start, every turn's start, its tokens one at a time with a handoff
 * wherever the author changes (when someone listens; otherwise one event per run of one author once the turn is
 * over), its end, then the verdicts, the rewards and the match's end once it is scored.
 */
export class MatchBroadcast {
  constructor(
    private readonly events: EventStream,
    private readonly gameId: string,
    private readonly tokenText: TokenText,
    /** Wait this long after each decoded step: a match watched at reading speed. 0 in training. */
    private readonly paceMs = 0,
  ) {}

  /** Whether tokens are streamed as decoded (someone listens). */
  get streaming(): boolean {
    return this.events.live;
  }

  start(matches: readonly MatchOpening[], seed: number): void {
    for (const { matchId, problem, seats } of matches) {
      this.events.publish({
        type: 'match-start',
        matchId,
        game: this.gameId,
        seed,
        seats,
        problemId: problem.id,
        ...(problem.prompt === undefined ? {} : { prompt: problem.prompt }),
        ...(problem.answer === undefined ? {} : { answer: problem.answer }),
      });
    }
  }

  turnStart(matchId: string, turn: number, role: string, policy: string): void {
    this.events.publish({ type: 'turn-start', matchId, turn, role, policy });
  }

  /**
   * A streamer for one generation call whose row r writes `rows[r]` (rows past the list are padding), its tokens from
   * position `from[r]` of the turn (0 when absent: a turn's first call); undefined when nobody listens.
   */
  streamer(rows: readonly StreamRow[], from?: readonly number[]): StepStreamer | undefined {
    if (!this.events.live) return undefined;
    const position = Int32Array.from(rows, (_, r) => from?.[r] ?? 0);
    const lastAuthor = new Int32Array(rows.length).fill(-1);
    const stream = (tokens: Int32Array, authors: Int32Array) => {
      for (const [r, row] of rows.entries()) {
        const token = tokens[r];
        if (token < 0) continue;
        const author = authors[r];
        if (lastAuthor[r] >= 0 && lastAuthor[r] !== author) {
          this.events.publish({ type: 'handoff', matchId: row.matchId, turn: row.turn, position: position[r], from: row.roles[lastAuthor[r]], to: row.roles[author] });
        }
        const special = this.tokenText.special(token);
        this.events.publish({
          type: 'tokens',
          matchId: row.matchId,
          turn: row.turn,
          position: position[r],
          tokens: [token],
          authors: [row.roles[author]],
          text: this.tokenText(token),
          ...(special === undefined ? {} : { specials: { 0: special } }),
        });
        position[r] += 1;
        lastAuthor[r] = author;
      }
    };
    return this.paceMs > 0
      ? (_step, tokens, authors) => {
          stream(tokens, authors);
          return new Promise((resolve) => setTimeout(resolve, this.paceMs));
        }
      : (_step, tokens, authors) => stream(tokens, authors);
  }

  /**
   * Tokens the environment appended to a turn at `position` (a tool's result), streamed where someone listens: the
   * handoff from the turn's role to `env`, the tokens, and the handoff back, where the role goes on writing.
   */
  environment(matchId: string, turn: number, position: number, tokens: readonly number[], role: string, author: string): void {
    if (!this.events.live || tokens.length === 0) return;
    this.events.publish({ type: 'handoff', matchId, turn, position, from: role, to: author });
    this.events.publish({ type: 'tokens', matchId, turn, position, tokens: [...tokens], authors: tokens.map(() => author), text: tokens.map((id) => this.tokenText(id)).join('') });
    this.events.publish({ type: 'handoff', matchId, turn, position: position + tokens.length, from: author, to: role });
  }

  /** A turn is over: its tokens at once when they were not streamed, then its end. */
  turnEnd(matchId: string, turn: EndedTurn, streamed: boolean): void {
    if (!streamed) this.publishRuns(matchId, turn);
    this.events.publish({
      type: 'turn-end',
      matchId,
      turn: turn.turn,
      role: turn.role,
      tokenCount: turn.tokens.length,
      finish: turn.finish ?? 'length',
      stepEnds: turn.stepEnds,
      ...(turn.world ? { world: turn.world } : {}),
      ...(turn.scene ? { scene: turn.scene } : {}),
    });
  }

  /** A match is scored: its verdicts, each role's reward and its end. */
  matchEnd(match: Pick<PlayedMatch, 'matchId' | 'rewards'>): void {
    const { matchId, rewards } = match;
    for (const verdict of rewards.verdicts ?? []) {
      this.events.publish({
        type: 'verdict',
        matchId,
        role: verdict.role,
        answerPresent: verdict.answer_present,
        correct: verdict.correct,
        judge: verdict.judge,
        turn: verdict.turn,
        ...(verdict.step === undefined ? {} : { step: verdict.step }),
      });
    }
    for (const [role, outcome] of Object.entries<number>(rewards.outcome)) {
      const steps = rewards.steps?.[role];
      this.events.publish({ type: 'reward', matchId, role, outcome, ...(steps && steps.length > 0 ? { steps } : {}) });
    }
    this.events.publish({ type: 'match-end', matchId, outcome: rewards.outcome });
  }

  /** Each run of tokens one author wrote, as one event, with a handoff between runs. */
  private publishRuns(matchId: string, turn: EndedTurn): void {
    let start = 0;
    for (let t = 1; t <= turn.tokens.length; t++) {
      if (t < turn.tokens.length && turn.authorIds[t] === turn.authorIds[start]) continue;
      const role = turn.authorRoles[turn.authorIds[start]];
      if (start > 0) this.events.publish({ type: 'handoff', matchId, turn: turn.turn, position: start, from: turn.authorRoles[turn.authorIds[start - 1]], to: role });
      const tokens = turn.tokens.slice(start, t);
      const text = start === 0 && t === turn.tokens.length ? turn.text : tokens.map((id) => this.tokenText(id)).join('');
      const specials = Object.fromEntries(
        tokens.flatMap((id, i) => {
          const name = this.tokenText.special(id);
          return name === undefined ? [] : [[i, name] as const];
        }),
      );
      this.events.publish({ type: 'tokens', matchId, turn: turn.turn, position: start, tokens, authors: tokens.map(() => role), text, ...(Object.keys(specials).length > 0 ? { specials } : {}) });
      start = t;
    }
  }
}

/** A token's text on its own, and, for a special token or a stop token, its name (which reads as no text). */
export type TokenText = ((id: number) => string) & { readonly special: (id: number) => string | undefined };

/** Each token's text on its own, decoded once per id; special and stop tokens read as nothing and are named instead. */
export function tokenTexts(tokenizer: Pick<TextTokenizer, 'decode' | 'json'>, stopTokens: readonly number[]): TokenText {
  const specials = specialTokens(tokenizer);
  for (const id of stopTokens) if (!specials.has(id)) specials.set(id, tokenizer.decode([id]) || `<${id}>`);
  const known = new Map<number, string>();
  const text = (id: number) => {
    let value = known.get(id);
    if (value === undefined) {
      value = specials.has(id) ? '' : tokenizer.decode([id]);
      known.set(id, value);
    }
    return value;
  };
  return Object.assign(text, { special: (id: number) => specials.get(id) });
}
