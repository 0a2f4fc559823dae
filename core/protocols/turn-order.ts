import type { TurnRecord } from './turn-record.ts';

/** What a turn order decides from: how many turns the protocol lists, what has been played, which turn just ended. */
export interface TurnOrderContext {
  readonly turnCount: number;
  readonly played: readonly TurnRecord<string>[];
  /** Index of the listed turn that just ended. */
  readonly current: number;
}

/** boardgame.io-style turn order over a protocol's listed turns: the match ends when `next` returns undefined. */
export interface TurnOrder {
  readonly name: string;
  first(context: Omit<TurnOrderContext, 'current'>): number | undefined;
  next(context: TurnOrderContext): number | undefined;
}

const ONCE: TurnOrder = {
  name: 'once',
  first: ({ turnCount }) => (turnCount > 0 ? 0 : undefined),
  next: ({ turnCount, current }) => (current + 1 < turnCount ? current + 1 : undefined),
};

/** Every listed turn in order, `rounds` times over (a debate of several rounds). */
function ROUNDS(rounds: number): TurnOrder {
  return {
    name: `rounds(${rounds})`,
    first: ({ turnCount }) => (turnCount > 0 && rounds > 0 ? 0 : undefined),
    next: ({ turnCount, played, current }) => (played.length < rounds * turnCount ? (current + 1) % turnCount : undefined),
  };
}

/** The listed turns at these indices, in this order. */
function CUSTOM(order: readonly number[]): TurnOrder {
  return {
    name: `custom(${order.join(',')})`,
    first: () => order[0],
    next: ({ played }) => order[played.length],
  };
}

/**
 * The listed turns in turn, round and round, as partners writing one answer step by step: the match ends after
 * `maxTurns` turns, or as soon as a turn ends otherwise than at one of its stop strings (its writer ended the answer,
 * or ran out of tokens).
 */
function STEPS(maxTurns: number): TurnOrder {
  return {
    name: `steps(${maxTurns})`,
    first: ({ turnCount }) => (turnCount > 0 && maxTurns > 0 ? 0 : undefined),
    next: ({ turnCount, played, current }) => (played.length < maxTurns && played[played.length - 1]?.finish === 'stop-sequence' ? (current + 1) % turnCount : undefined),
  };
}

export const TurnOrder = { ONCE, ROUNDS, CUSTOM, STEPS } as const;
