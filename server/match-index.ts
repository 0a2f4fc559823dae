import { GRADER_JUDGE } from '../core/grading/verdict.ts';
import { lastBoxed } from '../plugins/graders/math/boxed.ts';
import type { MatchFilter, MatchSummary, WireEvent } from './wire.ts';

/** What a list row shows of a match's problem (the rest is in the match itself). */
export const PROMPT_SHOWN = 160;
/** How much of a match's text (problem and turns, as a spectator sees them) search reads. */
const SEARCHED_CHARS = 8000;

/** A finished match as the list knows it: its summary, and the lowercased text search reads. */
export interface MatchRow {
  readonly summary: MatchSummary;
  readonly text: string;
}

/** The training step a match fed, from its id (`step-N/…` is played for step N + 1, as metrics count steps). */
export function trainingStepOf(matchId: string): number | undefined {
  const step = /^step-(\d+)\//.exec(matchId)?.[1];
  return step === undefined ? undefined : Number(step) + 1;
}

/** The tournament round a match was played in, from its id (`r<N>/…`). */
export function roundOf(matchId: string): number | undefined {
  const round = /^r(\d+)\//.exec(matchId)?.[1];
  return round === undefined ? undefined : Number(round);
}

/** What a list row shows of an answer. */
const ANSWER_SHOWN = 40;

/**
 * A finished match's row, from its summary and its events as a spectator got them (through the game's view): the
 * problem's text (shortened), the grader's verdict per role and the answer it judged (the judged turn's last box)
 * beside the gold one, the step or round, and the text search reads.
 */
export function matchRow(summary: MatchSummary, events: readonly WireEvent[]): MatchRow {
  const verdicts: Record<string, boolean> = {};
  const judged: Record<string, number | undefined> = {};
  const turns = new Map<number, string>();
  let prompt: string | undefined;
  let gold: string | undefined;
  const texts: string[] = [];
  for (const event of events) {
    if (event.type === 'match-start') {
      prompt = event.prompt;
      gold = event.answer;
    } else if (event.type === 'tokens' && event.text) {
      texts.push(event.text);
      turns.set(event.turn, (turns.get(event.turn) ?? '') + event.text);
    } else if (event.type === 'verdict' && event.judge === GRADER_JUDGE && event.step === undefined) {
      verdicts[event.role] = event.correct;
      judged[event.role] = event.turn;
    }
  }
  const lastTurn = Math.max(-1, ...turns.keys());
  const answers = Object.fromEntries(Object.entries(judged).map(([role, turn]) => [role, shorten(lastBoxed(turns.get(turn ?? lastTurn) ?? '') ?? null, ANSWER_SHOWN)]));
  const step = trainingStepOf(summary.matchId);
  const round = roundOf(summary.matchId);
  const text = `${summary.matchId}\n${summary.problemId ?? ''}\n${prompt ?? ''}\n${texts.join('')}`.slice(0, SEARCHED_CHARS).toLowerCase();
  return {
    summary: {
      ...summary,
      ...(step === undefined ? {} : { step }),
      ...(round === undefined ? {} : { round }),
      ...(prompt === undefined ? {} : { prompt: shorten(prompt, PROMPT_SHOWN) }),
      ...(Object.keys(verdicts).length > 0 ? { verdicts, answers } : {}),
      ...(gold === undefined ? {} : { gold: shorten(gold, ANSWER_SHOWN) }),
    },
    text,
  };
}

function shorten<T extends string | null>(text: T, length: number): T {
  return (text !== null && text.length > length ? `${text.slice(0, length)}…` : text) as T;
}

/** Whether a row passes every part of the filter; a role narrows outcome and verdict to that role (else: any role). */
export function passes(row: MatchRow, filter: MatchFilter): boolean {
  const { summary } = row;
  if (filter.step !== undefined && summary.step !== filter.step) return false;
  if (filter.group !== undefined && !summary.matchId.startsWith(filter.group)) return false;
  const roles = filter.role === undefined ? Object.keys(summary.seats) : [filter.role];
  if (filter.role !== undefined && !(filter.role in summary.seats)) return false;
  if (filter.outcome !== undefined) {
    const sign = { positive: 1, zero: 0, negative: -1 }[filter.outcome];
    if (!roles.some((role) => summary.outcome?.[role] !== undefined && Math.sign(summary.outcome[role]) === sign)) return false;
  }
  if (filter.verdict !== undefined) {
    const wanted = (role: string) => {
      const correct = summary.verdicts?.[role];
      return filter.verdict === 'unjudged' ? correct === undefined : correct === (filter.verdict === 'correct');
    };
    if (!roles.some(wanted)) return false;
  }
  if (filter.seats !== undefined) {
    const [row, column] = filter.seats;
    const seated = Object.entries(summary.seats);
    const against = (role: string) => seated.length === 1 || seated.some(([other, entrant]) => other !== role && entrant === column);
    if (!seated.some(([role, entrant]) => entrant === row && against(role))) return false;
  }
  if (filter.text !== undefined && filter.text.trim() !== '') {
    for (const word of filter.text.toLowerCase().split(/\s+/).filter(Boolean)) if (!row.text.includes(word)) return false;
  }
  return true;
}
