import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { playWorldMoveText, playWorldTurn, replayWorld, startWorld, worldPayoffs, worldPrompt, worldToMove, type WorldMatch } from '../../../core/world/world-match.ts';
import { worldRewards } from '../../../core/world/world-rewards.ts';
import { SPIRAL_FORFEIT, type IllegalMovePolicy, type World } from '../../../core/world/world.ts';
import type { TurnRecord } from '../../../core/protocols/turn-record.ts';
import type { WorldProtocol } from '../../../core/protocols/world.ts';
import { ticTacToeWorld } from '../../../games/tictactoe.ts';

type Seat = 'a' | 'b';

/** A world that never ends by itself: players alternate saying a number 1-3; only the turn limit stops it. */
const endless: World<{ said: number[] }, number, Seat> = {
  id: 'endless',
  players: ['a', 'b'],
  setup: () => ({ said: [] }),
  toMove: (state) => (state.said.length % 2 === 0 ? 'a' : 'b'),
  observe: (state, player) => `${player} hears ${state.said.join(' ')}`,
  legalMoves: () => [1, 2, 3],
  moveText: (move) => String(move),
  parse: (text, legal) => {
    const n = Number(text.trim());
    if (!Number.isInteger(n)) return { kind: 'unparseable' };
    return legal.includes(n) ? { kind: 'move', move: n } : { kind: 'illegal', why: `${n} is not 1-3` };
  },
  apply: (state, move) => ({ said: [...state.said, move] }),
  payoffs: () => ({ a: 1, b: -1 }),
  turnLimit: 5,
};

function playTexts(world: World<any, any, any>, texts: readonly string[], policy: IllegalMovePolicy = SPIRAL_FORFEIT): WorldMatch {
  let match = startWorld(world.id, world, 1);
  for (const text of texts) match = playWorldTurn(world, match, text, policy).match;
  return match;
}

function worldError(run: () => unknown): LudusError {
  try {
    run();
  } catch (error) {
    expect(LudusError.is(error, 'WORLD_INVALID')).toBe(true);
    return error as LudusError;
  }
  return expect.unreachable('the call succeeded');
}

describe('world match', () => {
  describe('having a world that never ends by itself', () => {
    it('should stop it at its turn limit, as a draw (every payoff 0)', () => {
      const match = playTexts(endless, ['1', '2', '3', '1', '2']);
      expect(match.truncated).toBe(true);
      expect(worldToMove(endless, match)).toBeUndefined();
      expect(worldPayoffs(endless, match, SPIRAL_FORFEIT)).toEqual({ a: 0, b: 0 });
      expect(() => playWorldTurn(endless, match, '1', SPIRAL_FORFEIT)).toThrow(/after the match ended/);
    });
  });

  describe('having a parser that throws', () => {
    it('should be WORLD_INVALID naming the game and the turn', () => {
      const broken = { ...endless, id: 'broken', parse: () => { throw new Error('boom'); } };
      const match = playTexts(endless, ['1', '2']);
      const error = worldError(() => playWorldTurn(broken, { ...match, game: 'broken' }, 'x', SPIRAL_FORFEIT));
      expect(error.message).toMatch(/game "broken" turn 2: its move parser threw .*boom/);
      expect(error.details).toMatchObject({ game: 'broken', turn: 2 });
    });
  });

  describe('having a parser that returns an illegal move as legal', () => {
    it('should be WORLD_INVALID naming the game, the turn and the move', () => {
      const lax = { ...endless, id: 'lax', parse: () => ({ kind: 'move' as const, move: 9 }) };
      const error = worldError(() => playWorldTurn(lax, startWorld('lax', lax, 1), '9', SPIRAL_FORFEIT));
      expect(error.message).toMatch(/game "lax" turn 0: its parser returned "9" as legal/);
      expect(error.details).toMatchObject({ game: 'lax', turn: 0, move: '9' });
    });
  });

  describe('having an illegal or unparseable move', () => {
    it('should forfeit at once under SPIRAL\'s rule: −1.5 to the offender, 0.5 to the other', () => {
      const match = playTexts(ticTacToeWorld, ['5', '5']);
      expect(match.forfeit).toBe('second');
      expect(match.notes[1]).toMatchObject({ player: 'second', verdict: 'illegal', move: null });
      expect(worldPayoffs(ticTacToeWorld, match, SPIRAL_FORFEIT)).toEqual({ first: 0.5, second: -1.5 });
      expect(playTexts(ticTacToeWorld, ['hello']).notes[0].verdict).toBe('unparseable');
    });

    it('should let the player write again up to `retries` times under the retry policy, then forfeit', () => {
      const retry: IllegalMovePolicy = { kind: 'retry', retries: 2, penalty: -1, others: 0 };
      const twice = playTexts(ticTacToeWorld, ['5', '5', 'no', '1'], retry);
      expect(twice.forfeit).toBeUndefined();
      expect(twice.moves).toBe(2);
      expect(twice.notes.map((n) => n.verdict)).toEqual(['legal', 'illegal', 'unparseable', 'legal']);
      const thrice = playTexts(ticTacToeWorld, ['5', '5', '5', '5'], retry);
      expect(thrice.forfeit).toBe('second');
      expect(worldPayoffs(ticTacToeWorld, thrice, retry)).toEqual({ first: 0, second: -1 });
    });

    it('should remind the player of its tries in the prompt', () => {
      const retry: IllegalMovePolicy = { kind: 'retry', retries: 2, penalty: -1, others: 0 };
      const match = playTexts(ticTacToeWorld, ['5', '5'], retry);
      expect(worldPrompt(ticTacToeWorld, match, 'second', retry)).toContain('That move was not legal; 2 tries left.');
    });
  });

  describe('having played a match', () => {
    it('should replay it from its deal and its notes to the same state', () => {
      const retry: IllegalMovePolicy = { kind: 'retry', retries: 1, penalty: -1, others: 0 };
      const match = playTexts(ticTacToeWorld, ['1', '4', '4', '2', '5', '3'], retry);
      expect(replayWorld('tictactoe', ticTacToeWorld, 1, match.notes, retry)).toEqual(match);
    });

    it('should refuse a scripted move that is not legal', () => {
      worldError(() => playWorldMoveText(ticTacToeWorld, playTexts(ticTacToeWorld, ['1']), '1'));
    });
  });

  describe('worldRewards', () => {
    const protocol: WorldProtocol<'first' | 'second'> = { family: 'world', name: 'tictactoe', world: ticTacToeWorld, maxTokens: 4, illegal: SPIRAL_FORFEIT };
    const transcript = (texts: string[]): TurnRecord<'first' | 'second'>[] => {
      let match = startWorld('tictactoe', ticTacToeWorld, 3);
      return texts.map((text, turn) => {
        const role = worldToMove(ticTacToeWorld, match) as 'first' | 'second';
        const played = playWorldTurn(ticTacToeWorld, match, text, SPIRAL_FORFEIT);
        match = played.match;
        return { turn, role, text, tokens: [1, 2], world: played.note };
      });
    };
    const problem = { id: 'deal-train-0', question: '', instruction: '', prompt: '', answer: '', solution: '', steps: [], meta: { deal: 3 } };

    it('should pay the payoffs and label win, loss, illegal tries and the forfeit', async () => {
      const won = await worldRewards(protocol)({ matchId: 'm', seed: 0, problem, transcript: transcript(['1', '4', '2', '5', '3']), finished: true });
      expect(won.outcome).toEqual({ first: 1, second: -1 });
      expect(won.labels?.first).toMatchObject({ win: 1, loss: 0, illegal: 0, forfeit: 0 });
      expect(won.verdicts?.find((v) => v.role === 'first')).toMatchObject({ correct: true, answer_present: true });
      const forfeited = await worldRewards(protocol)({ matchId: 'm', seed: 0, problem, transcript: transcript(['1', 'x']), finished: true });
      expect(forfeited.outcome).toEqual({ first: 0.5, second: -1.5 });
      expect(forfeited.labels?.second).toMatchObject({ illegal: 1, forfeit: 1, loss: 1 });
    });

    it('should refuse a problem that is not a deal', async () => {
      await expect(async () => worldRewards(protocol)({ matchId: 'm', seed: 0, problem: { ...problem, meta: {} }, transcript: [], finished: true })).rejects.toThrow(/--task world/);
    });
  });
});
