import { describe, expect, it } from 'vitest';
import { cfrPolicy } from '../../core/world/cfr.ts';
import { exploitability, uniformPolicy } from '../../core/world/exploitability.ts';
import { gameTree } from '../../core/world/game-tree.ts';
import { randomLegal } from '../../core/world/random-legal.ts';
import { playScriptedMatch, playWorldMoveText, playWorldTurn, resultOf, startWorld, worldPayoffs, worldPrompt } from '../../core/world/world-match.ts';
import { playerView } from '../../core/world/world-moves.ts';
import { SPIRAL_FORFEIT, type AnyWorld } from '../../core/world/world.ts';
import { connectFourWorld, solvedValue, solverPlayer, winnerDisc, COLUMNS, ROWS } from '../../games/connect-four.ts';
import { leducWorld, type LeducState } from '../../games/leduc-holdem.ts';
import { liarsDiceWorld, type LiarsState } from '../../games/liars-dice.ts';
import { trader, tradeWorld, type TradeState } from '../../games/trade.ts';
import { expectPromptsEqualWithinInformationSets } from '../support/world-checks.ts';

const play = (world: AnyWorld, seed: number, moves: readonly string[]) => moves.reduce((m, move) => playWorldMoveText(world, m, move).match, startWorld(world.id, world, seed));
const moveTexts = (world: AnyWorld, state: unknown) => world.legalMoves(state).map((m: unknown) => world.moveText(m));

describe("leduc hold'em", () => {
  const at = (cards: number[], rounds: string[]): LeducState => ({ cards, rounds });

  it('should offer check or bet, fold, call or raise facing a bet, and no third bet in a round', () => {
    expect(moveTexts(leducWorld, at([0, 1], ['']))).toEqual(['check', 'bet']);
    expect(moveTexts(leducWorld, at([0, 1], ['b']))).toEqual(['fold', 'call', 'raise']);
    expect(moveTexts(leducWorld, at([0, 1], ['bb']))).toEqual(['fold', 'call']);
    expect(leducWorld.toMove(at([0, 1], ['cb']))).toBe('first');
  });

  it('should deal the public card after a round that ends without a fold, by what is left of the deck, and end on a fold', () => {
    expect(leducWorld.chanceOutcomes!(at([2, 2], ['cc'])).map((o) => [o.id, o.probability])).toEqual([['J', 0.5], ['Q', 0.5]]);
    expect(leducWorld.chanceOutcomes!(at([0, 1], ['bf']))).toEqual([]);
    expect(leducWorld.toMove(at([0, 1], ['bf']))).toBeUndefined();
    expect(leducWorld.chanceOutcomes!(at([], [''])).map((o) => o.probability)).toEqual([1 / 3, 1 / 3, 1 / 3]);
    expect(leducWorld.chanceOutcomes!(at([1], [''])).map((o) => [o.id, o.probability])).toEqual([['J', 0.4], ['Q', 0.2], ['K', 0.4]]);
  });

  it('should pay the chips won: a fold loses what was put in, a pair with the public card beats a higher card', () => {
    const pay = (cards: number[], rounds: string[]) => leducWorld.payoffs(at(cards, rounds)).first;
    expect(pay([0, 1], ['bf'])).toBe(1);
    expect(pay([0, 1], ['cbf'])).toBe(-1);
    expect(pay([0, 1], ['bbf'])).toBe(-3);
    expect(pay([0, 2, 0], ['cc', 'cc'])).toBe(1);
    expect(pay([0, 2, 1], ['bc', 'bbc'])).toBe(-11);
    expect(pay([1, 1, 2], ['cc', 'bc'])).toBe(0);
  });

  const tree = gameTree(leducWorld);

  it("should prompt alike within every information set, and hide the other's card", () => {
    expectPromptsEqualWithinInformationSets(leducWorld, tree);
    expect(worldPrompt(leducWorld, { ...startWorld('leduc-holdem', leducWorld, 0), state: at([0, 2], ['b']) }, 'second', SPIRAL_FORFEIT)).toContain('Your card: K. No public card yet.\nRound 1: first bets.');
  });

  it("should measure exactly, by the generic code: uniform play's NashConv is OpenSpiel's 4.7472, CFR+'s policy near 0 at the game value −0.0856", () => {
    expect(exploitability(tree, uniformPolicy(tree)).nashConv).toBeCloseTo(4.747222, 5);
    // The game's own opponent runs LEDUC_CFR_ITERATIONS (under 0.001); 300 here keep the test short.
    const nash = exploitability(tree, cfrPolicy(tree, 300));
    expect(nash.exploitability).toBeLessThan(0.005);
    expect(nash.values[0]).toBeCloseTo(-0.0856, 3);
  });
});

describe("liar's dice", () => {
  const at = (dice: number[], bids: number[], called = false): LiarsState => ({ dice, bids, called });

  it('should allow only higher bids, and the call only after a bid', () => {
    expect(moveTexts(liarsDiceWorld, at([1, 2], []))).toEqual(['bid 1 1', 'bid 1 2', 'bid 1 3', 'bid 1 4', 'bid 2 1', 'bid 2 2', 'bid 2 3', 'bid 2 4']);
    expect(moveTexts(liarsDiceWorld, at([1, 2], [5]))).toEqual(['bid 2 3', 'bid 2 4', 'liar']);
    expect(moveTexts(liarsDiceWorld, at([1, 2], [0, 7]))).toEqual(['liar']);
  });

  it('should make the caller lose when the bid holds and the bidder when it does not', () => {
    // first bids 2 × 3 (index 6); second calls: it holds with two 3s (first wins), not with one.
    const called = (dice: number[]) => liarsDiceWorld.payoffs(playWorldMoveText(liarsDiceWorld, { ...startWorld('liars-dice', liarsDiceWorld, 0), state: at(dice, [6]) }, 'liar').match.state as LiarsState);
    expect(called([3, 3])).toEqual({ first: 1, second: -1 });
    expect(called([3, 1])).toEqual({ first: -1, second: 1 });
  });

  const tree = gameTree(liarsDiceWorld);

  it("should prompt alike within every information set (its own die and the bids, never the other's die)", () => {
    expectPromptsEqualWithinInformationSets(liarsDiceWorld, tree);
    expect(tree.informationSets).toHaveLength(4 * 2 ** 8);
  });

  it('should find an equilibrium by CFR+ from the contract, its exploitability near 0', () => {
    expect(exploitability(tree, uniformPolicy(tree)).exploitability).toBeGreaterThan(0.5);
    // The game's own opponent runs LIARS_DICE_CFR_ITERATIONS (about 1e-4); 100 here keep the test short.
    expect(exploitability(tree, cfrPolicy(tree, 100)).exploitability).toBeLessThan(0.01);
  }, 120_000);
});

describe('connect four (small board)', () => {
  it('should drop discs to the lowest free cell, and find four in a row across, down and on both diagonals', () => {
    const match = play(connectFourWorld, 0, ['1', '1', '2']);
    expect(worldPrompt(connectFourWorld, match, 'second', SPIRAL_FORFEIT)).toBe(`Connect four on ${COLUMNS} columns of ${ROWS}: drop a disc in a column; four in a row wins. You are O.\n. . . .\n. . . .\nO . . .\nX X . .\n1 2 3 4\nLegal moves: 1, 2, 3, 4\nYour move:`);
    expect(winnerDisc('....' + '....' + '....' + 'XXXX')).toBe('X');
    expect(winnerDisc('O...' + 'O...' + 'O...' + 'O...')).toBe('O');
    expect(winnerDisc('...X' + '..X.' + '.X..' + 'X...')).toBe('X');
    expect(winnerDisc('O...' + '.O..' + '..O.' + '...O')).toBe('O');
    const full = play(connectFourWorld, 0, ['1', '1', '1', '1']);
    expect(moveTexts(connectFourWorld, full.state)).toEqual(['2', '3', '4']);
  });

  it('should solve the board (a draw with perfect play), and the solver should never lose to random in either seat', () => {
    expect(solvedValue('.'.repeat(COLUMNS * ROWS))).toBe(0);
    for (let seed = 0; seed < 20; seed++) {
      expect(worldPayoffs(connectFourWorld, playScriptedMatch(connectFourWorld, { first: solverPlayer, second: randomLegal }, seed), SPIRAL_FORFEIT).first).toBeGreaterThanOrEqual(0);
      expect(worldPayoffs(connectFourWorld, playScriptedMatch(connectFourWorld, { first: randomLegal, second: solverPlayer }, seed), SPIRAL_FORFEIT).second).toBeGreaterThanOrEqual(0);
    }
  });

  it('should read a column number with the default parser and refuse a full column as unparseable', () => {
    const full = play(connectFourWorld, 0, ['1', '1', '1', '1']);
    expect(playWorldTurn(connectFourWorld, full, ' 3', SPIRAL_FORFEIT).note).toMatchObject({ verdict: 'legal', move: '3' });
    expect(playWorldTurn(connectFourWorld, full, '1', SPIRAL_FORFEIT).note.verdict).toBe('unparseable');
  });
});

describe('trade (after SimpleNegotiation)', () => {
  const start = (holdings: number[][], values: number[][]): TradeState => ({ holdings, start: holdings, values, moves: 0 });

  it('should offer only what a player holds, and move the goods both ways on an accept', () => {
    const s = start([[2, 0, 1], [1, 3, 0]], [[1, 2, 5], [4, 1, 1]]);
    const texts = moveTexts(tradeWorld, s);
    expect(texts).toContain('2 wood for 1 gold');
    expect(texts).not.toContain('1 stone for 1 wood');
    const offered = tradeWorld.apply(s, { kind: 'offer', give: { amount: 1, resource: 2 }, get: { amount: 2, resource: 1 } });
    expect(moveTexts(tradeWorld, offered)).toContain('accept');
    const done = tradeWorld.apply(offered, { kind: 'accept' });
    expect(done.holdings).toEqual([[2, 2, 0], [1, 1, 1]]);
    // first gave a gold (5) for two stone (2 × 2): worth 7 → 6; second gave two stone (1 each) for a gold (1): 7 → 6.
    const ended = { ...done, moves: 6 };
    expect(tradeWorld.payoffs(ended)).toEqual({ first: -1 / 7, second: -1 / 7 });
    expect(resultOf(tradeWorld.payoffs(ended), 'first', tradeWorld.utility)).toBe('loss');
  });

  it("should never put the other's holdings or values in a prompt", () => {
    const prompt = (other: number[][]) => worldPrompt(tradeWorld, { ...startWorld('trade', tradeWorld, 0), state: start([[2, 1, 1], other[0]], [[3, 2, 1], other[1]]) }, 'first', SPIRAL_FORFEIT);
    expect(prompt([[1, 1, 1], [1, 1, 1]])).toBe(prompt([[3, 0, 2], [5, 4, 2]]));
  });

  it('should have the trader accept an offer worth more to it, and offer its cheapest unit for its dearest', () => {
    const s = tradeWorld.apply(start([[2, 0, 1], [1, 3, 0]], [[1, 2, 5], [4, 1, 1]]), { kind: 'offer', give: { amount: 1, resource: 0 }, get: { amount: 1, resource: 1 } });
    expect(trader(playerView(tradeWorld, s, 'second') as never)).toEqual({ kind: 'accept' });
    expect(trader(playerView(tradeWorld, start([[2, 0, 1], [1, 3, 0]], [[1, 2, 5], [4, 1, 1]]), 'first') as never)).toEqual({ kind: 'offer', give: { amount: 1, resource: 0 }, get: { amount: 1, resource: 2 } });
    let gains = 0;
    for (let seed = 0; seed < 50; seed++) gains += worldPayoffs(tradeWorld, playScriptedMatch(tradeWorld, { first: trader, second: trader }, seed), SPIRAL_FORFEIT).first;
    expect(gains / 50).toBeGreaterThan(0);
  });
});
