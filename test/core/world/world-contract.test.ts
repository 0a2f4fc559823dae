import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { exploitability, uniformPolicy } from '../../../core/world/exploitability.ts';
import { gameTree } from '../../../core/world/game-tree.ts';
import { playScriptedMatch, playWorldMoveText, playWorldTurn, replayWorld, resultOf, startWorld, worldPrompt, worldToMove } from '../../../core/world/world-match.ts';
import { firstLegalMove } from '../../../core/world/world-moves.ts';
import { worldRewards } from '../../../core/world/world-rewards.ts';
import { oracle, SPIRAL_FORFEIT, type PlayerView, type World } from '../../../core/world/world.ts';
import type { TurnRecord } from '../../../core/protocols/turn-record.ts';
import { expectPromptsEqualWithinInformationSets } from '../../support/world-checks.ts';

type Seat = 'a' | 'b';

/** Players add 1 or 2 to a total in turn; after every move a public coin adds 0 or 1 more. Whoever reaches 6 first wins. */
interface Coins {
  readonly total: number;
  readonly next: Seat;
  readonly flip: boolean;
  readonly winner?: Seat;
}
const other = (seat: Seat): Seat => (seat === 'a' ? 'b' : 'a');
const coins: World<Coins, number, Seat> = {
  id: 'coins',
  players: ['a', 'b'],
  setup: () => ({ total: 0, next: 'a', flip: false }),
  chanceOutcomes: (state) => (state.flip && !state.winner ? [0, 1].map((k) => ({ id: `coin ${k}`, probability: 0.5, state: { ...state, total: state.total + k, flip: false } })) : []),
  toMove: (state) => (state.winner ? undefined : state.next),
  observe: (state, seat) => `You are ${seat}. Total ${state.total}; reach 6 to win.`,
  legalMoves: () => [1, 2],
  moveText: (n) => `add ${n}`,
  apply: (state, n) => {
    const total = state.total + n;
    return total >= 6 ? { ...state, total, winner: state.next } : { total, next: other(state.next), flip: true };
  },
  payoffs: (state) => ({ a: state.winner === 'a' ? 1 : -1, b: state.winner === 'b' ? 1 : -1 }),
  turnLimit: 20,
};

describe('the world contract, second round', () => {
  describe('having chance mid-game', () => {
    it('should draw every chance event from the match seed, so a match replays exactly from (seed, moves)', () => {
      const play = (seed: number) => ['add 1', 'add 2', 'add 1'].reduce((m, move) => (worldToMove(coins, m) ? playWorldMoveText(coins, m, move).match : m), startWorld('coins', coins, seed));
      const once = play(7);
      expect(once.chance.length).toBeGreaterThan(0);
      expect(play(7)).toEqual(once);
      expect(replayWorld('coins', coins, 7, once.notes, SPIRAL_FORFEIT)).toEqual(once);
      const draws = new Set(Array.from({ length: 30 }, (_, seed) => play(seed).chance.join(',')));
      expect(draws.size).toBeGreaterThan(2);
    });

    it('should enumerate the chance in the game tree with its probabilities, and refuse a setup that draws', () => {
      const tree = gameTree(coins);
      expect(tree.root.kind).toBe('decision');
      const afterFirst = tree.root.kind === 'decision' ? tree.root.moves[0].child : undefined;
      expect(afterFirst?.kind === 'chance' && afterFirst.outcomes.map((o) => o.probability)).toEqual([0.5, 0.5]);
      expect(exploitability(tree, uniformPolicy(tree)).exploitability).toBeGreaterThan(0);
      const drawing = { ...coins, setup: (rng: { int: (n: number) => number }) => ({ total: rng.int(2), next: 'a' as const, flip: false }) };
      expect(() => gameTree(drawing)).toThrow(/setup draws chance/);
      const lopsided = { ...coins, chanceOutcomes: (s: Coins) => (s.flip ? [{ id: 'x', probability: 0.7, state: { ...s, flip: false } }] : []) };
      expect(() => playWorldMoveText(lopsided, startWorld('lopsided', lopsided, 0), 'add 1')).toThrow(/probabilities sum to 0.7/);
    });
  });

  describe('the default parser', () => {
    const legal = [1, 2, 10, 12];
    const digits = { ...coins, moveText: (n: number) => String(n) };
    it('should take the legal move whose text comes first, standing alone, the longer one where two start together', () => {
      expect(firstLegalMove(digits, 'I play 12 then 1', legal)).toEqual({ kind: 'move', move: 12 });
      expect(firstLegalMove(digits, '10', legal)).toEqual({ kind: 'move', move: 10 });
      expect(firstLegalMove(digits, 'x2 and 1', legal)).toEqual({ kind: 'move', move: 1 });
      expect(firstLegalMove(digits, '7', legal)).toEqual({ kind: 'unparseable' });
      expect(firstLegalMove(coins, ' ADD 2, no, add 1', [1, 2])).toEqual({ kind: 'move', move: 2 });
    });

    it("should read a world's moves when it writes no parser of its own", () => {
      const match = playWorldTurn(coins, startWorld('coins', coins, 1), ' add 2', SPIRAL_FORFEIT);
      expect(match.note).toMatchObject({ verdict: 'legal', move: 'add 2' });
      expect(playWorldTurn(coins, startWorld('coins', coins, 1), 'add 3', SPIRAL_FORFEIT).note.verdict).toBe('unparseable');
    });
  });

  describe('scripted players', () => {
    it("should give a scripted player what a model in its seat is given, and the whole state to an oracle only", () => {
      const seen: PlayerView<number, Seat>[] = [];
      const viewer = (view: PlayerView<number, Seat>) => {
        seen.push(view);
        return view.legal[0];
      };
      const states: Coins[] = [];
      const cheat = oracle<Coins, number, Seat>((state, _seat, legal) => {
        states.push(state);
        return legal[legal.length - 1];
      });
      playScriptedMatch(coins, { a: viewer, b: cheat }, 3);
      expect(seen.length).toBeGreaterThan(0);
      for (const view of seen) expect(Object.keys(view).sort()).toEqual(['informationState', 'legal', 'observation', 'player']);
      expect(seen[0]).toEqual({ player: 'a', observation: 'You are a. Total 0; reach 6 to win.', informationState: 'You are a. Total 0; reach 6 to win.', legal: [1, 2] });
      expect(states[0]).toHaveProperty('total');
    });
  });

  describe('rewards and utility', () => {
    it('should pay a move reward to any player at the end of its latest turn, and define a win by the utility', async () => {
      const fined = { ...coins, moveReward: (_b: Coins, n: number, _a: Coins, mover: Seat) => (n === 2 ? { [other(mover)]: -0.25, [mover]: 0.1 } : 0.05) };
      let match = startWorld('fined', fined, 2);
      const transcript: TurnRecord<Seat>[] = [];
      for (const text of ['add 1', 'add 2', 'add 2']) {
        const role = worldToMove(fined, match) as Seat;
        const played = playWorldTurn(fined, match, text, SPIRAL_FORFEIT);
        match = played.match;
        transcript.push({ turn: transcript.length, role, text, tokens: [1, 2, 3], world: played.note });
        if (!worldToMove(fined, match)) break;
      }
      const problem = { id: 'p', question: '', instruction: '', prompt: '', answer: '', solution: '', steps: [], meta: { deal: 2 } };
      const rewards = await worldRewards({ family: 'world', name: 'fined', world: fined, maxTokens: 4, illegal: SPIRAL_FORFEIT })({ matchId: 'm', seed: 0, problem, transcript, finished: true });
      // a: add 1 (+0.05 at its turn 0), fined −0.25 by b's add 2 (placed at a's latest turn, 0), then add 2 (+0.1 at turn 2).
      expect(rewards.steps?.a).toEqual([{ position: 2, value: 0.05 - 0.25 }, { position: 5, value: 0.1 }]);
      // b: its add 2 pays it 0.1 at its turn; a's add 2 fines it −0.25, placed at its latest turn (the same one).
      expect(rewards.steps?.b).toEqual([{ position: 2, value: 0.1 - 0.25 }]);
      expect(resultOf({ a: 0.6, b: 0.9 }, 'a', { kind: 'general-sum', min: 0, max: 1, par: 0.5 })).toBe('win');
      expect(resultOf({ a: 0.6, b: 0.9 }, 'a')).toBe('loss');
      expect(resultOf({ a: 0.5, b: 0.9 }, 'a', { kind: 'general-sum', min: 0, max: 1, par: 0.5 })).toBe('draw');
    });
  });

  describe('simultaneous moves, sequentialised', () => {
    /**
     * Rock-paper-scissors played in turn: the first player's choice is kept hidden from the second, whose observation
     * and information state say only that a choice was made; both are revealed at the end.
     */
    type Hand = 'rock' | 'paper' | 'scissors';
    const beats: Record<Hand, Hand> = { rock: 'scissors', paper: 'rock', scissors: 'paper' };
    const rps: World<{ hands: Hand[] }, Hand, Seat> = {
      id: 'rps',
      players: ['a', 'b'],
      setup: () => ({ hands: [] }),
      toMove: (state) => (['a', 'b'] as const)[state.hands.length],
      observe: (state, seat) => `Rock, paper, scissors. You are ${seat}.${state.hands.length > 0 ? ' The other has chosen, unseen.' : ''}`,
      informationState: (state, seat) => `${seat}:${state.hands.length}`,
      legalMoves: () => ['rock', 'paper', 'scissors'],
      moveText: (hand) => hand,
      apply: (state, hand) => ({ hands: [...state.hands, hand] }),
      payoffs: ({ hands: [x, y] }) => {
        const a = x === y ? 0 : beats[x] === y ? 1 : -1;
        return { a, b: -a };
      },
      turnLimit: 2,
    };

    it("should hide the first mover's choice from the second's prompt: one information set, one prompt", () => {
      const tree = gameTree(rps);
      expect(tree.informationSets.map((s) => s.key)).toEqual(['a:0', 'b:1']);
      expectPromptsEqualWithinInformationSets(rps, tree);
      const prompts = (['rock', 'paper', 'scissors'] as const).map((hand) => worldPrompt(rps, playWorldMoveText(rps, startWorld('rps', rps, 0), hand).match, 'b', SPIRAL_FORFEIT));
      expect(new Set(prompts).size).toBe(1);
    });

    it('should measure it as the simultaneous game: uniform play unexploitable, a fixed hand exploited by a full point', () => {
      const tree = gameTree(rps);
      expect(exploitability(tree, uniformPolicy(tree)).exploitability).toBeCloseTo(0, 12);
      const rock = { ...uniformPolicy(tree), 'a:0': { rock: 1, paper: 0, scissors: 0 } };
      expect(exploitability(tree, rock).nashConv).toBeCloseTo(1, 12);
    });
  });

  it('should refuse an information state two players share or whose states offer different moves', () => {
    const shared = { ...coins, id: 'shared', informationState: () => 'same' };
    let error: unknown;
    try {
      gameTree(shared);
    } catch (caught) {
      error = caught;
    }
    expect(LudusError.is(error, 'WORLD_INVALID')).toBe(true);
    expect((error as Error).message).toMatch(/information state "same" is shared by states that differ in their mover/);
  });
});
