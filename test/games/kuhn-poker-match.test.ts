import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { randomLegal } from '../../core/world/random-legal.ts';
import { playScriptedMatch, playWorldMoveText, startWorld, worldPayoffs, worldPrompt, type WorldMatch } from '../../core/world/world-match.ts';
import { SPIRAL_FORFEIT } from '../../core/world/world.ts';
import type { MetricsLine } from '../../engine/trainer/metrics-line.ts';
import { kuhnNashPolicy, type KuhnState } from '../../games/kuhn-poker.ts';
import { HANDS, handSeatOf, kuhnPokerMatchGame, kuhnPokerMatchWorld, matchPolicyPlayer, openerOf, type KuhnMatchState } from '../../games/kuhn-poker-match.ts';
import { jsonl, runTraining, tinyConfig } from '../support/training.ts';

const CARD = ['J', 'Q', 'K'];
const stateOf = (match: WorldMatch) => match.state as KuhnMatchState;
/** Plays moves by their text from a match with the given deals (each hand's cards: who acts first, then second). */
const played = (deals: [number, number][], moves: string[]) => {
  const start = { ...startWorld('kuhn-poker-match', kuhnPokerMatchWorld, 0), state: { hands: deals.map((cards): KuhnState => ({ cards, history: '' })), hand: 0, chips: 0 } };
  return moves.reduce((m, move) => playWorldMoveText(kuhnPokerMatchWorld, m, move).match, start as WorldMatch);
};

describe('kuhn-poker-match (SPIRAL KuhnPoker-v1)', () => {
  it('should play five hands, the first to act alternating between the match seats, then stop', () => {
    expect([0, 1, 2, 3, 4].map(openerOf)).toEqual(['first', 'second', 'first', 'second', 'first']);
    const deals: [number, number][] = [[2, 0], [2, 0], [2, 0], [2, 0], [2, 0]];
    const movers: string[] = [];
    let match = played(deals, []);
    for (let i = 0; i < 10; i++) {
      movers.push(kuhnPokerMatchWorld.toMove(stateOf(match))!);
      match = playWorldMoveText(kuhnPokerMatchWorld, match, 'check').match;
    }
    // Each hand check-check: the opener then the other, hand after hand.
    expect(movers).toEqual(['first', 'second', 'second', 'first', 'first', 'second', 'second', 'first', 'first', 'second']);
    expect(stateOf(match).hand).toBe(HANDS);
    expect(kuhnPokerMatchWorld.toMove(stateOf(match))).toBeUndefined();
  });

  it('should carry the chips over the hands and pay ±1 for the match, 0 on a tie', () => {
    // The opener holds K and the other J in every hand: every showdown goes to the opener, the seats alternating.
    const deals: [number, number][] = [[2, 0], [2, 0], [2, 0], [2, 0], [2, 0]];
    // Hands 1, 3, 5 (first opens): check-check, first +1 each; hands 2, 4 (second opens): bet-call, second +2 each.
    const lost = played(deals, ['check', 'check', 'bet', 'call', 'check', 'check', 'bet', 'call', 'check', 'check']);
    expect(stateOf(lost).chips).toBe(3 - 4);
    expect(worldPayoffs(kuhnPokerMatchWorld, lost, SPIRAL_FORFEIT)).toEqual({ first: -1, second: 1 });
    // +1, −1, +1, −2, +1: level after five hands.
    const tied = played(deals, ['check', 'check', 'check', 'check', 'check', 'check', 'bet', 'call', 'check', 'check']);
    expect(stateOf(tied).chips).toBe(0);
    expect(worldPayoffs(kuhnPokerMatchWorld, tied, SPIRAL_FORFEIT)).toEqual({ first: 0, second: 0 });
    // A fold pays the ante alone: the first folds its J to the second's bet in hands 2 and 4, −1 each.
    const folded = played(deals, ['check', 'check', 'bet', 'fold', 'check', 'check', 'bet', 'fold', 'check', 'check']);
    expect(stateOf(folded).chips).toBe(3 - 2);
  });

  it("should show each seat its own card only, with the hand, the chips and its place in the hand", () => {
    const match = played([[2, 0], [1, 2], [0, 1], [0, 1], [0, 1]], ['check', 'check']);
    // Hand 2: the second seat opens with Q; the first holds K. First's chips +1.
    const second = worldPrompt(kuhnPokerMatchWorld, match, 'second', SPIRAL_FORFEIT);
    expect(second).toContain('hand 2 of 5');
    expect(second).toContain('Your chips so far: -1.');
    expect(second).toContain('This hand you act first.');
    expect(second).toContain('Your card: Q.');
    expect(second).not.toContain('Your card: K.');
    const state = stateOf(match);
    expect(kuhnPokerMatchWorld.observe(state, 'first')).toContain(`Your card: ${CARD[state.hands[1].cards[1]]}.`);
    expect(handSeatOf(1, 'first')).toBe('second');
  });

  it('should deal every hand from the match seed, and play whole matches against its reference opponents', () => {
    // Each match's five deals, drawn as its hands start: 40 seeds give nearly 40 different sets of deals.
    const dealsOf = (seed: number) => stateOf(playScriptedMatch(kuhnPokerMatchWorld, { first: randomLegal, second: randomLegal }, seed)).hands.map((h) => h.cards.join('')).join(' ');
    const deals = new Set(Array.from({ length: 40 }, (_, seed) => dealsOf(seed)));
    expect(deals.size).toBeGreaterThan(30);
    expect(dealsOf(7)).toBe(dealsOf(7));
    let total = 0;
    for (let seed = 0; seed < 200; seed++) {
      const match = playScriptedMatch(kuhnPokerMatchWorld, { first: matchPolicyPlayer(kuhnNashPolicy(0)), second: randomLegal }, seed);
      expect(stateOf(match).hand).toBe(HANDS);
      total += worldPayoffs(kuhnPokerMatchWorld, match, SPIRAL_FORFEIT).first;
    }
    // Kuhn's equilibrium beats a uniformly random player hand by hand, so it wins most matches.
    expect(total / 200).toBeGreaterThan(0.2);
    // Each hand is dealt by the one-hand game's chance events as it starts: three first cards, then two.
    const fresh = kuhnPokerMatchWorld.setup(new Rng(0));
    expect(kuhnPokerMatchWorld.chanceOutcomes!(fresh).map((o) => [o.id, o.probability])).toEqual([['J', 1 / 3], ['Q', 1 / 3], ['K', 1 / 3]]);
    expect(kuhnPokerMatchWorld.chanceOutcomes!(kuhnPokerMatchWorld.chanceOutcomes!(fresh)[2].state)).toHaveLength(2);
  });

  it('should be a self-play game whose seats are the match seats, with kuhn-poker\'s KL default', () => {
    const game = kuhnPokerMatchGame({});
    expect(game.rotation.at(0)).toEqual({ seats: { first: 'player', second: 'player' }, trains: ['player'] });
    expect(game.losses?.first?.kl?.beta).toBe(0.5);
  });

  it('should train by self-play from the shipped world base, each match seat with its own RAE baseline', async () => {
    const { out } = await runTraining(tinyConfig({ game: 'kuhn-poker-match', task: 'world', advantage: 'rae', steps: 1, problemsPerStep: 2, groupSize: 2, microBatchRows: 32 }));
    const [line] = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
    expect(line.trains).toEqual(['player']);
    expect(line.roles.first.win! + line.roles.first.draw! + line.roles.first.loss!).toBeCloseTo(1, 12);
    expect(line.policies.player.loss).toEqual(expect.any(Number));
  }, 300_000);
});
