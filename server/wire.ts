import { z } from 'zod';
import type { LeaderboardRow, LudusEvent, RunSummary } from '../core/events.ts';
import type { PayoffTable } from '../core/tournament/payoff.ts';

/**
 * What a run is doing, as the viewer lists it: `finished` took all its steps (or rounds), `stopped` ended before
 * (Ctrl-C, an error); `recorded` is a run replayed from its directory.
 */
export type RunStatus = 'running' | 'paused' | 'finished' | 'stopped' | 'recorded';

export interface RunInfo {
  readonly id: string;
  readonly game: string;
  readonly status: RunStatus;
  /** Control actions this run accepts (with its token). */
  readonly actions: readonly ControlAction[];
  /** A recorded run: how many finished matches it holds (the list asks for them by `matches`, a page at a time). */
  readonly matches?: number;
  /** The curves the viewer draws first, larger (the game's headline: metric keys, `*` for every role or policy). */
  readonly headline?: readonly string[];
  /** The tournament the run is a game of: its runs (one per game) share one leaderboard, ratings and payoff table. */
  readonly tournament?: string;
}

/** A tournament entrant's rating after every round, the first point its rating before it first played. */
export interface RatingHistory {
  /** The tournament run whose events carried it (the tournament's first game). */
  readonly run: string;
  readonly entrant: string;
  readonly system: string;
  readonly points: readonly { readonly round: number; readonly rating: number; readonly mu: number; readonly sigma: number }[];
}

/** A run's status changed: part of the numbered stream so the page orders it with the matches. */
export interface RunStatusEvent {
  readonly type: 'run-status';
  readonly seq: number;
  readonly status: RunStatus;
}

/** Every event on the wire names its run; `seq` is the hub's, strictly increasing over all runs. */
export type WireEvent = (LudusEvent | RunStatusEvent) & { readonly run: string };

export interface MatchSummary {
  readonly run: string;
  readonly matchId: string;
  readonly game: string;
  readonly seats: Readonly<Record<string, string>>;
  readonly problemId?: string;
  readonly tokenCount: number;
  readonly finished: boolean;
  readonly outcome?: Readonly<Record<string, number>>;
  /** The training step the match fed (matches of a training run). */
  readonly step?: number;
  /** The problem's text as a spectator may see it, shortened. */
  readonly prompt?: string;
  /** The grader's verdict on each judged role's answer: correct or not. */
  readonly verdicts?: Readonly<Record<string, boolean>>;
  /** Each judged role's final answer (its turn's last `\boxed{…}`), null where it boxed none. */
  readonly answers?: Readonly<Record<string, string | null>>;
  /** The gold answer, where the game's view lets a spectator see it. */
  readonly gold?: string;
  /** The tournament round the match was played in. */
  readonly round?: number;
}

/** A live match so far: its text as runs of one author each. */
export interface LiveMatch extends MatchSummary {
  readonly spans: readonly { readonly turn: number; readonly author: string; readonly text: string }[];
}

export interface MetricsPoint {
  readonly step: number;
  readonly metrics: Readonly<Record<string, number>>;
}

export interface Snapshot {
  readonly type: 'snapshot';
  /** The last event the snapshot includes: events that follow have a larger seq. */
  readonly seq: number;
  readonly runs: readonly RunInfo[];
  readonly live: readonly LiveMatch[];
  /** The most recent finished matches, newest last; their events come with a `match` request. */
  readonly finished: readonly MatchSummary[];
  /** Per tournament run, its leaderboard after the latest round. */
  readonly leaderboards: Readonly<Record<string, readonly LeaderboardRow[]>>;
  /** Each entrant's rating after every round so far, the first point its rating before it first played (tournaments). */
  readonly ratings: readonly RatingHistory[];
  /** Per tournament run, its payoff table after the latest round (`table[a][b]`: a's wins, draws and losses against b). */
  readonly payoffs: Readonly<Record<string, PayoffTable>>;
  /** Per training run that took all its steps, its final figures (summary.json). */
  readonly summaries: Readonly<Record<string, RunSummary>>;
  readonly metrics: Readonly<Record<string, readonly MetricsPoint[]>>;
}

export type ServerMessage =
  | Snapshot
  | { readonly type: 'events'; readonly events: readonly WireEvent[] }
  | { readonly type: 'match'; readonly run: string; readonly matchId: string; readonly events: readonly WireEvent[] }
  | MatchPage
  | { readonly type: 'control-ok'; readonly run: string; readonly action: ControlAction }
  | WireErrorMessage;

/** A page of a run's finished matches that pass `filter`, newest first: matches [offset, offset + matches.length) of `total`. */
export interface MatchPage {
  readonly type: 'matches';
  readonly run: string;
  /** The request's `query`, echoed: a page answers the list's latest question only. */
  readonly query?: number;
  readonly total: number;
  readonly offset: number;
  readonly matches: readonly MatchSummary[];
}

/** The most matches one page holds. */
export const MATCH_PAGE_LIMIT = 500;

/** Which finished matches a list shows; every part optional, all parts must hold. */
export const MatchFilterSchema = z.strictObject({
  /** The training step the match fed. */
  step: z.number().int().min(0).optional(),
  /** Narrows outcome and verdict to this role (else: any role). */
  role: z.string().max(100).optional(),
  /** The sign of the role's outcome. */
  outcome: z.enum(['positive', 'zero', 'negative']).optional(),
  /** The grader's verdict on the role's answer. */
  verdict: z.enum(['correct', 'wrong', 'unjudged']).optional(),
  /** Matches where the first entrant sat against the second (a payoff cell); in a one-seat game, the first entrant's. */
  seats: z.tuple([z.string().max(200), z.string().max(200)]).optional(),
  /** Matches whose id starts with this: a group (same step and problem) when it ends in `/`. */
  group: z.string().max(500).optional(),
  /** Words that must all occur in the problem or the match's text (case-insensitive). */
  text: z.string().max(200).optional(),
});
export type MatchFilter = z.infer<typeof MatchFilterSchema>;

export const CONTROL_ACTIONS = ['pause', 'resume', 'start-match'] as const;
export type ControlAction = (typeof CONTROL_ACTIONS)[number];

export const ClientMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('control'), run: z.string().max(200), action: z.enum(CONTROL_ACTIONS), token: z.string().max(200) }),
  z.strictObject({ type: z.literal('match'), run: z.string().max(200), matchId: z.string().max(500) }),
  z.strictObject({ type: z.literal('resync') }),
  z.strictObject({
    type: z.literal('matches'),
    run: z.string().max(200),
    offset: z.number().int().min(0),
    limit: z.number().int().min(1).max(MATCH_PAGE_LIMIT),
    filter: MatchFilterSchema.optional(),
    query: z.number().int().min(0).optional(),
  }),
]);
export type ClientMessage = z.infer<typeof ClientMessageSchema>;

/** Every refusal a client can get, by stable code; the connection stays open unless it broke the transport. */
export const WIRE_ERRORS = {
  MESSAGE_INVALID: 'not a client message (JSON with type control | match | matches | resync)',
  MESSAGE_TOO_LARGE: 'client messages are limited in size',
  TOKEN_REFUSED: "control needs the run's token, printed when it started",
  RUN_UNKNOWN: 'no such run',
  ACTION_UNSUPPORTED: 'this run does not accept that action',
  MATCH_UNKNOWN: 'no such match is kept',
  CONTROL_FAILED: 'the action failed',
} as const;
export type WireErrorCode = keyof typeof WIRE_ERRORS;

export interface WireErrorMessage {
  readonly type: 'error';
  readonly code: WireErrorCode;
  readonly message: string;
}

export const wireError = (code: WireErrorCode, detail?: string): WireErrorMessage => ({
  type: 'error',
  code,
  message: detail ? `${WIRE_ERRORS[code]}: ${detail}` : WIRE_ERRORS[code],
});
