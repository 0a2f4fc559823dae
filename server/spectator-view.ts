import type { LudusEvent, MatchStartEvent, TokensEvent, TurnEndEvent } from '../core/events.ts';
import type { View } from '../core/game/view.ts';
import type { TurnRecord } from '../core/protocols/turn-record.ts';

/** What a spectator may see of one event. */
export type EventView = (event: LudusEvent) => LudusEvent;

/**
 * Passes every transcript-bearing event through the game's view with viewer `null`: the event's tokens become the
 * records of a match state (one per run of one author), the view strips what a spectator must not see, and the
 * event is rebuilt from what is left. Broadcast views see the transcript, not the problem (events carry its id only).
 * A turn's end carries the secret the view leaves a spectator of the whole turn (Agon: the summary the challenger
 * read, the answer withheld from it), so the text of each turn is kept until it ends.
 */
export function spectatorView<Role extends string, Problem>(view: View<Role, Problem>): EventView {
  const texts = new Map<string, string>();
  const key = (matchId: string, turn: number) => `${matchId}\u0000${turn}`;
  return (event) => {
    if (event.type === 'tokens') {
      texts.set(key(event.matchId, event.turn), (texts.get(key(event.matchId, event.turn)) ?? '') + (event.text ?? ''));
      return viewTokens(view, event);
    }
    if (event.type === 'turn-end') {
      const text = texts.get(key(event.matchId, event.turn));
      texts.delete(key(event.matchId, event.turn));
      return text === undefined ? event : viewTurnEnd(view, event, text);
    }
    return event.type === 'match-start' ? viewProblem(view, event) : event;
  };
}

/** The turn's end, with the secret the view leaves a spectator of the whole turn, when it leaves one. */
function viewTurnEnd<Role extends string, Problem>(view: View<Role, Problem>, event: TurnEndEvent, text: string): TurnEndEvent {
  const record = { turn: event.turn, role: event.role as Role, tokens: [], text };
  const seen = view({ matchId: event.matchId, seed: 0, problem: undefined as Problem, transcript: [record], finished: false }, null).transcript[0];
  return seen?.secret === undefined ? event : { ...event, secret: seen.secret };
}

/** The problem's text and gold answer stay on a match's opening event only as far as the view leaves them to a spectator. */
function viewProblem<Role extends string, Problem>(view: View<Role, Problem>, event: MatchStartEvent): MatchStartEvent {
  if (event.prompt === undefined && event.answer === undefined) return event;
  const problem = { id: event.problemId, prompt: event.prompt, answer: event.answer } as Problem;
  const seen = view({ matchId: event.matchId, seed: event.seed, problem, transcript: [], finished: false }, null).problem as { prompt?: unknown; answer?: unknown } | undefined;
  const { prompt: _prompt, answer: _answer, ...rest } = event;
  return {
    ...rest,
    ...(typeof seen?.prompt === 'string' ? { prompt: seen.prompt } : {}),
    ...(typeof seen?.answer === 'string' ? { answer: seen.answer } : {}),
  };
}

function viewTokens<Role extends string, Problem>(view: View<Role, Problem>, event: TokensEvent): TokensEvent {
  const records = authorRuns(event) as TurnRecord<Role>[];
  // Events carry the problem's id, not the problem: a broadcast view reads the transcript only.
  const state = { matchId: event.matchId, seed: 0, problem: undefined as Problem, transcript: records, finished: false };
  const seen = view(state, null).transcript;
  if (seen.length === records.length && seen.every((record, i) => sameRecord(record, records[i]))) return event;
  const { text: _text, specials: _specials, ...rest } = event;
  return {
    ...rest,
    tokens: seen.flatMap((record) => record.tokens),
    authors: seen.flatMap((record) => record.tokens.map(() => record.role)),
    text: seen.map((record) => record.text).join(''),
  };
}

/** The event's tokens as records of one author each; the text goes with them when a single author wrote them all. */
function authorRuns(event: TokensEvent): TurnRecord<string>[] {
  const runs: TurnRecord<string>[] = [];
  let start = 0;
  for (let t = 1; t <= event.tokens.length; t++) {
    if (t === event.tokens.length || event.authors[t] !== event.authors[start]) {
      runs.push({ turn: event.turn, role: event.authors[start], tokens: event.tokens.slice(start, t), text: '' });
      start = t;
    }
  }
  if (runs.length === 1) runs[0] = { ...runs[0], text: event.text ?? '' };
  return runs;
}

function sameRecord(a: TurnRecord<string>, b: TurnRecord<string>): boolean {
  return a.role === b.role && a.text === b.text && a.tokens.length === b.tokens.length && a.tokens.every((token, i) => token === b.tokens[i]) && a.secret === b.secret;
}
