import type { EventEmitter } from 'eventemitter3';
import type { StepReward } from './advantages/estimator.ts';
import type { FinishReason } from './protocols/turn-record.ts';
import type { PayoffTable } from './tournament/payoff.ts';
import type { WorldTurnNote } from './world/world-match.ts';
import type { WorldScene } from './world/world.ts';

/**
 * Every event carries `seq`: its position in its engine's stream, from 0, one more per event, across all matches.
 * A subscriber that sees a gap has missed events; ordering within a match is the order of `seq`.
 */
interface Sequenced {
  readonly seq: number;
}

interface InMatch extends Sequenced {
  readonly matchId: string;
}

export interface MatchStartEvent extends InMatch {
  readonly type: 'match-start';
  readonly game: string;
  readonly seed: number;
  /** Which policy plays each role. */
  readonly seats: Readonly<Record<string, string>>;
  readonly problemId?: string;
  /** The problem's text and gold answer, where the game's view lets a spectator see them. */
  readonly prompt?: string;
  readonly answer?: string;
}

export interface TokensEvent extends InMatch {
  readonly type: 'tokens';
  readonly turn: number;
  /** Index of the first of these tokens in the turn's response. */
  readonly position: number;
  readonly tokens: readonly number[];
  /** Per token: the role that wrote it. */
  readonly authors: readonly string[];
  /** The tokens as text; a special token (end of text, chat markers) reads as nothing here and is named in `specials`. */
  readonly text?: string;
  /** Index among `tokens` → the special token there (`<|endoftext|>`): a viewer shows it as a marker, not as text. */
  readonly specials?: Readonly<Record<number, string>>;
}

export interface HandoffEvent extends InMatch {
  readonly type: 'handoff';
  readonly turn: number;
  /** Index of the first token the new author writes. */
  readonly position: number;
  readonly from: string;
  readonly to: string;
}

export interface TurnStartEvent extends InMatch {
  readonly type: 'turn-start';
  readonly turn: number;
  readonly role: string;
  /** The policy writing it (co-decoding: the first author's). */
  readonly policy: string;
}

export interface TurnEndEvent extends InMatch {
  readonly type: 'turn-end';
  readonly turn: number;
  readonly role: string;
  readonly tokenCount: number;
  readonly finish: FinishReason;
  /** Token positions (in the turn) that end a reasoning step. */
  readonly stepEnds?: readonly number[];
  /**
   * What the game's view shows a spectator beside the finished turn, added on the way to spectators (Agon's draft: the
   * summary the challenger read and the withheld final answer).
   */
  readonly secret?: Readonly<Record<string, unknown>>;
  /** A world game's turn: the move it made (or why none), and the world after it as a spectator sees it. */
  readonly world?: WorldTurnNote;
  readonly scene?: WorldScene;
}

export interface VerdictEvent extends InMatch {
  readonly type: 'verdict';
  /** The role judged. */
  readonly role: string;
  readonly answerPresent: boolean;
  readonly correct: boolean;
  readonly judge: string;
  /** The turn judged. */
  readonly turn?: number;
  /** The reasoning step judged, within that turn (0-based); absent for a verdict on the whole turn. */
  readonly step?: number;
}

export interface RewardEvent extends InMatch {
  readonly type: 'reward';
  readonly role: string;
  readonly outcome: number;
  /** Rewards at token positions of the role's response tokens (its turns concatenated). */
  readonly steps?: readonly StepReward[];
}

export interface AdvantageEvent extends InMatch {
  readonly type: 'advantage';
  readonly role: string;
  /** The policy that learned from it. */
  readonly policy: string;
  /** Mean advantage over the role's tokens in this match. */
  readonly advantage: number;
  /** The rollout left the loss (a dropped zero-variance group). */
  readonly dropped: boolean;
}

export interface MatchEndEvent extends InMatch {
  readonly type: 'match-end';
  readonly outcome: Readonly<Record<string, number>>;
}

export interface TrainStepEvent extends Sequenced {
  readonly type: 'train-step';
  readonly step: number;
  /** The policies updated at this step. */
  readonly trains: readonly string[];
  /** The step's numbers, flat: `seconds`, `role/<role>/<name>` and `policy/<policy>/<name>` (see metricsOf). */
  readonly metrics: Readonly<Record<string, number>>;
}

export interface ValidationEvent extends Sequenced {
  readonly type: 'validation';
  readonly step: number;
  /** The role whose correctness validation tracks. */
  readonly role: string;
  readonly accuracy: number;
  readonly answerPresent: number;
}

/** An estimate with its standard error. */
export interface Estimate {
  readonly value: number;
  readonly se: number;
}

/** A tournament entrant's skill estimate (openskill): its mean and its uncertainty. */
export interface Skill {
  readonly mu: number;
  readonly sigma: number;
}

export interface RatingChangeEvent extends Sequenced {
  readonly type: 'rating-change';
  readonly entrant: string;
  /** The rating `system` names (openskill's conservative μ − 3σ), before and after the round. */
  readonly before: number;
  readonly after: number;
  readonly system: string;
  /** Rounds played once this change applies (1 after the first round). */
  readonly round: number;
  /** The estimate behind the rating, before and after the round: μ moves with results, σ shrinks with every game. */
  readonly skill: { readonly before: Skill; readonly after: Skill };
}

/** One row of a tournament's leaderboard. */
export interface LeaderboardRow extends Skill {
  readonly rank: number;
  readonly entrant: string;
  /** μ − 3σ: what the ranking sorts by. */
  readonly ordinal: number;
  /** Games played against every opponent together, and their results (fractional where partners shared a response). */
  readonly games: number;
  readonly wins: number;
  readonly draws: number;
  readonly losses: number;
  readonly trainable: boolean;
  readonly snapshotOf?: string;
}

/** A tournament's leaderboard after a round. */
export interface StandingsEvent extends Sequenced {
  readonly type: 'standings';
  /** Rounds played (1 after the first). */
  readonly round: number;
  readonly rows: readonly LeaderboardRow[];
}

/** What a finished training run reports (its run directory's summary.json): every final figure with its SE. */
export interface RunSummary {
  readonly game: string;
  readonly steps: number;
  /** The trained policies against where they started, on the same held-out matches (absent with finalComparison 0). */
  readonly comparison?: {
    readonly role: string;
    readonly policy: string;
    /** `solo`, or `co-written with <roles>`. */
    readonly written: string;
    readonly split: string;
    readonly problems: number;
    /** Share of problems judged correct, bootstrap SE over problems. */
    readonly trained: Estimate;
    readonly start: Estimate;
    /** trained − start, paired by problem. */
    readonly difference: Estimate;
  };
  /** The best validation accuracy the run reached (binomial SE over its problems), where it validated. */
  readonly best?: { readonly role: string; readonly step: number; readonly split: string; readonly problems: number; readonly accuracy: Estimate };
}

/** A training run's summary, once it has taken all its steps. */
export interface RunSummaryEvent extends Sequenced {
  readonly type: 'run-summary';
  readonly summary: RunSummary;
}

/** A tournament's payoff table after a round: every entrant's results against every other so far, over all its games. */
export interface PayoffTableEvent extends Sequenced {
  readonly type: 'payoff-table';
  /** Rounds played (1 after the first). */
  readonly round: number;
  readonly table: PayoffTable;
}

export type LudusEvent =
  | MatchStartEvent
  | TurnStartEvent
  | TokensEvent
  | HandoffEvent
  | TurnEndEvent
  | VerdictEvent
  | RewardEvent
  | AdvantageEvent
  | MatchEndEvent
  | TrainStepEvent
  | ValidationEvent
  | RatingChangeEvent
  | PayoffTableEvent
  | StandingsEvent
  | RunSummaryEvent;

export type LudusEventType = LudusEvent['type'];

export type LudusEventOf<T extends LudusEventType> = Extract<LudusEvent, { type: T }>;

/** An event before its stream numbers it. */
export type UnsequencedEvent = LudusEvent extends infer E ? (E extends LudusEvent ? Omit<E, 'seq'> : never) : never;

/** Listener signatures by event type, in eventemitter3's event-map form; `event` carries every event. */
export type LudusEventMap = { readonly [T in LudusEventType]: (event: LudusEventOf<T>) => void } & { readonly event: (event: LudusEvent) => void };

/** The engine's event stream. */
export type LudusEmitter = EventEmitter<LudusEventMap>;

/** Numbers events in the order given, from `start`: the one place `seq` is assigned. */
export function sequencer(start = 0): (event: UnsequencedEvent) => LudusEvent {
  let next = start;
  return (event) => ({ ...event, seq: next++ }) as LudusEvent;
}
