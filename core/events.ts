import type { EventEmitter } from 'eventemitter3';

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
}

export interface TokensEvent extends InMatch {
  readonly type: 'tokens';
  readonly turn: number;
  /** Index of the first of these tokens in the turn's response. */
  readonly position: number;
  readonly tokens: readonly number[];
  /** Per token: the role that wrote it. */
  readonly authors: readonly string[];
  readonly text?: string;
}

export interface HandoffEvent extends InMatch {
  readonly type: 'handoff';
  readonly turn: number;
  /** Index of the first token the new author writes. */
  readonly position: number;
  readonly from: string;
  readonly to: string;
}

export interface TurnEndEvent extends InMatch {
  readonly type: 'turn-end';
  readonly turn: number;
  readonly role: string;
  readonly tokenCount: number;
  readonly finish: 'stop' | 'length' | 'aborted';
}

export interface VerdictEvent extends InMatch {
  readonly type: 'verdict';
  /** The role judged. */
  readonly role: string;
  readonly answerPresent: boolean;
  readonly correct: boolean;
  readonly judge: string;
}

export interface RewardEvent extends InMatch {
  readonly type: 'reward';
  readonly role: string;
  readonly outcome: number;
  readonly perStep?: readonly number[];
}

export interface MatchEndEvent extends InMatch {
  readonly type: 'match-end';
  readonly outcome: Readonly<Record<string, number>>;
}

export interface TrainStepEvent extends Sequenced {
  readonly type: 'train-step';
  readonly step: number;
  readonly policy: string;
  readonly role: string;
  readonly loss: number;
  readonly zeroVarianceGroups: number;
  readonly metrics: Readonly<Record<string, number>>;
}

export interface RatingChangeEvent extends Sequenced {
  readonly type: 'rating-change';
  readonly entrant: string;
  readonly before: number;
  readonly after: number;
  readonly system: string;
}

export type LudusEvent =
  | MatchStartEvent
  | TokensEvent
  | HandoffEvent
  | TurnEndEvent
  | VerdictEvent
  | RewardEvent
  | MatchEndEvent
  | TrainStepEvent
  | RatingChangeEvent;

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
