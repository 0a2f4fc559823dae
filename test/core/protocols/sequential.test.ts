import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { pendingTurn, recordTurn, startTurns, type SequentialProtocol, type SequentialState } from '../../../core/protocols/sequential.ts';
import { TurnOrder } from '../../../core/protocols/turn-order.ts';

type Role = 'generator' | 'verifier';
interface Problem {
  question: string;
}

const generatorThenVerifier: SequentialProtocol<Role, Problem> = {
  family: 'sequential',
  name: 'generate-then-verify',
  turns: [
    { role: 'generator', template: (_, problem) => `Solve: ${problem.question}`, maxTokens: 64 },
    { role: 'verifier', template: (earlier, problem) => `Check ${problem.question}: ${earlier.map((t) => t.text).join(' | ')}`, maxTokens: 32, stop: ['</verdict>'] },
  ],
};
const problem: Problem = { question: '2+2' };

/** Plays the protocol to its end, answering each turn with `reply`; returns the roles and prompts in order. */
function playOut(protocol: SequentialProtocol<Role, Problem>, reply = (role: Role, turn: number) => `${role}#${turn}`) {
  let state: SequentialState<Role> = startTurns(protocol);
  const seen: { role: Role; prompt: string }[] = [];
  for (let pending = pendingTurn(protocol, state, problem); pending; pending = pendingTurn(protocol, state, problem)) {
    seen.push({ role: pending.spec.role, prompt: pending.prompt });
    state = recordTurn(protocol, state, { role: pending.spec.role, text: reply(pending.spec.role, state.played.length), tokens: [1, 2] });
  }
  return { seen, state };
}

describe('sequential protocol', () => {
  describe('having the default order', () => {
    it('should play every listed turn once, each prompted from the turns before it, then end', () => {
      const { seen, state } = playOut(generatorThenVerifier);
      expect(seen).toEqual([
        { role: 'generator', prompt: 'Solve: 2+2' },
        { role: 'verifier', prompt: 'Check 2+2: generator#0' },
      ]);
      expect(state.current).toBeUndefined();
      expect(state.played.map((record) => [record.turn, record.role])).toEqual([
        [0, 'generator'],
        [1, 'verifier'],
      ]);
    });
  });

  describe('having TurnOrder.ROUNDS(2)', () => {
    it('should go through the listed turns twice', () => {
      const { seen } = playOut({ ...generatorThenVerifier, order: TurnOrder.ROUNDS(2) });
      expect(seen.map((turn) => turn.role)).toEqual(['generator', 'verifier', 'generator', 'verifier']);
      expect(seen[2].prompt).toBe('Solve: 2+2');
      expect(seen[3].prompt).toBe('Check 2+2: generator#0 | verifier#1 | generator#2');
    });
  });

  describe('having TurnOrder.CUSTOM', () => {
    it('should play the listed turns at those indices in that order', () => {
      expect(playOut({ ...generatorThenVerifier, order: TurnOrder.CUSTOM([1, 0, 0]) }).seen.map((turn) => turn.role)).toEqual(['verifier', 'generator', 'generator']);
    });

    it('should fail with CONFIG_INVALID when the order names a turn the protocol does not list', () => {
      const protocol = { ...generatorThenVerifier, order: TurnOrder.CUSTOM([0, 2]) };
      const playFirstTurn = recordTurnOf(protocol, startTurns(protocol), 'generator');
      expect(playFirstTurn).toThrow(/CONFIG_INVALID.*turn 2/);
    });
  });

  describe('having TurnOrder.STEPS', () => {
    const play = (finishes: readonly ('stop-sequence' | 'stop' | 'length')[], maxTurns: number) => {
      const protocol = { ...generatorThenVerifier, order: TurnOrder.STEPS(maxTurns) };
      let state: SequentialState<Role> = startTurns(protocol);
      for (let pending = pendingTurn(protocol, state, problem); pending; pending = pendingTurn(protocol, state, problem)) {
        state = recordTurn(protocol, state, { role: pending.spec.role, text: 'step', tokens: [1], finish: finishes[state.played.length] });
      }
      return state.played.map((turn) => turn.role);
    };

    it('should go round the listed turns while each ends at a stop string, up to the turn cap', () => {
      expect(play(['stop-sequence', 'stop-sequence', 'stop-sequence', 'stop-sequence', 'stop-sequence'], 5)).toEqual(['generator', 'verifier', 'generator', 'verifier', 'generator']);
    });

    it('should end at the first turn that ends otherwise: the end of the answer or the token budget', () => {
      expect(play(['stop-sequence', 'stop-sequence', 'stop', 'stop-sequence'], 9)).toEqual(['generator', 'verifier', 'generator']);
      expect(play(['stop-sequence', 'length', 'stop-sequence'], 9)).toEqual(['generator', 'verifier']);
    });
  });

  describe('having a turn recorded for the wrong role', () => {
    it('should fail with INPUT_INVALID naming whose turn it was', () => {
      expect(recordTurnOf(generatorThenVerifier, startTurns(generatorThenVerifier), 'verifier')).toThrow(/INPUT_INVALID.*"generator", not "verifier"/);
    });
  });

  describe('having a turn recorded after the match ended', () => {
    it('should fail with INPUT_INVALID', () => {
      const { state } = playOut(generatorThenVerifier);
      expect(pendingTurn(generatorThenVerifier, state, problem)).toBeUndefined();
      try {
        recordTurnOf(generatorThenVerifier, state, 'generator')();
        expect.unreachable();
      } catch (error) {
        expect(LudusError.is(error, 'INPUT_INVALID')).toBe(true);
      }
    });
  });

  describe('having no turns', () => {
    it('should be over before it starts', () => {
      const empty: SequentialProtocol<Role, Problem> = { family: 'sequential', name: 'empty', turns: [] };
      expect(pendingTurn(empty, startTurns(empty), problem)).toBeUndefined();
    });
  });
});

function recordTurnOf(protocol: SequentialProtocol<Role, Problem>, state: SequentialState<Role>, role: Role) {
  return () => recordTurn(protocol, state, { role, text: 'x', tokens: [] });
}
