import { describe, expect, it } from 'vitest';
import { randomLegal } from '../../core/world/random-legal.ts';
import { playScriptedMatch, playWorldMoveText, playWorldTurn, resultOf, startWorld, worldPayoffs, worldPrompt } from '../../core/world/world-match.ts';
import { playerView } from '../../core/world/world-moves.ts';
import { SPIRAL_FORFEIT } from '../../core/world/world.ts';
import { LudusError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import { cfrPolicy } from '../../core/world/cfr.ts';
import { bestResponse, exploitability, uniformPolicy } from '../../core/world/exploitability.ts';
import { gameTree } from '../../core/world/game-tree.ts';
import { policyPlayer } from '../../core/world/policy-player.ts';
import { infoKey, KUHN_KL_BETA, kuhnNashPolicy, kuhnPokerGame, kuhnPokerWorld, type KuhnState } from '../../games/kuhn-poker.ts';
import { expectPromptsEqualWithinInformationSets } from '../support/world-checks.ts';
import { bargainer, negotiationWorld, type NegotiationState } from '../../games/negotiation.ts';
import { minimaxPlayer, minimaxValue, ticTacToeGame, ticTacToeWorld, winnerMark, type Cell, type TicTacToeState } from '../../games/tictactoe.ts';

const board = (cells: string): Cell[] => [...cells].map((c) => (c === '.' ? '' : (c as Cell)));
const play = (moves: string[]) => {
  const match = moves.reduce((m, move) => playWorldMoveText(ticTacToeWorld, m, move).match, startWorld('tictactoe', ticTacToeWorld, 0));
  return { ...match, state: match.state as TicTacToeState };
};

describe('tictactoe', () => {
  it('should find three in a row on rows, columns and diagonals, and nothing else', () => {
    expect(winnerMark(board('XXX.OO...'))).toBe('X');
    expect(winnerMark(board('O..O..O..'))).toBe('O');
    expect(winnerMark(board('X...X...X'))).toBe('X');
    expect(winnerMark(board('..O.O.O..'))).toBe('O');
    expect(winnerMark(board('XOXXOOOXX'))).toBe('');
  });

  it('should let the free cells be played, X first, and end on a line or a full board', () => {
    const match = play(['1', '4', '2', '5', '3']);
    expect(ticTacToeWorld.toMove(match.state)).toBeUndefined();
    expect(worldPayoffs(ticTacToeWorld, match, SPIRAL_FORFEIT)).toEqual({ first: 1, second: -1 });
    const draw = play(['1', '2', '3', '5', '4', '6', '8', '7', '9']);
    expect(ticTacToeWorld.toMove(draw.state)).toBeUndefined();
    expect(worldPayoffs(ticTacToeWorld, draw, SPIRAL_FORFEIT)).toEqual({ first: 0, second: 0 });
    expect(ticTacToeWorld.legalMoves(play(['5']).state).map(ticTacToeWorld.moveText)).toEqual(['1', '2', '3', '4', '6', '7', '8', '9']);
  });

  it('should prompt with the free cells numbered and the legal moves stated', () => {
    const match = play(['5', '1']);
    expect(worldPrompt(ticTacToeWorld, match, 'first', SPIRAL_FORFEIT)).toBe('Tic-tac-toe. You are X; three in a row wins.\nO 2 3\n4 X 6\n7 8 9\nLegal moves: 2, 3, 4, 6, 7, 8, 9\nYour move:');
  });

  it('should read the first cell number of a text as the move; a taken cell is illegal', () => {
    const match = play(['5']);
    expect(playWorldTurn(ticTacToeWorld, match, ' 3 please', SPIRAL_FORFEIT).note).toMatchObject({ verdict: 'legal', move: '3' });
    expect(playWorldTurn(ticTacToeWorld, match, '5', SPIRAL_FORFEIT).note).toMatchObject({ verdict: 'illegal', why: 'cell 5 is taken' });
  });

  it('should value the empty board a draw, and minimax should never lose to random in either seat', () => {
    expect(minimaxValue({ board: board('.........') })).toBe(0);
    for (let seed = 0; seed < 40; seed++) {
      const asFirst = worldPayoffs(ticTacToeWorld, playScriptedMatch(ticTacToeWorld, { first: minimaxPlayer, second: randomLegal }, seed), SPIRAL_FORFEIT);
      const asSecond = worldPayoffs(ticTacToeWorld, playScriptedMatch(ticTacToeWorld, { first: randomLegal, second: minimaxPlayer }, seed), SPIRAL_FORFEIT);
      expect(asFirst.first).toBeGreaterThanOrEqual(0);
      expect(asSecond.second).toBeGreaterThanOrEqual(0);
      expect(worldPayoffs(ticTacToeWorld, playScriptedMatch(ticTacToeWorld, { first: minimaxPlayer, second: minimaxPlayer }, seed), SPIRAL_FORFEIT)).toEqual({ first: 0, second: 0 });
    }
  });

  it('should be a self-play game by default, one policy in both seats learning from both', () => {
    const game = ticTacToeGame({});
    expect(game.rotation.at(0)).toEqual({ seats: { first: 'player', second: 'player' }, trains: ['player'] });
    expect(game.trainable).toEqual(['first', 'second']);
    const two = ticTacToeGame({ play: 'two-policy', learn: ['first'] });
    expect(two.rotation.at(0)).toEqual({ seats: { first: 'first', second: 'second' }, trains: ['first'] });
    expect(() => ticTacToeGame({ illegal: 'shrug' })).toThrow(/CONFIG_INVALID/);
  });

  it('should add a KL toward the policy\'s start and an entropy bonus to every learning seat only where their knobs are set', () => {
    expect(ticTacToeGame({}).losses).toEqual({});
    const game = ticTacToeGame({ klBeta: 0.5, entropy: 0.01, play: 'two-policy', learn: ['second'] });
    expect(game.losses).toEqual({ second: { kl: { toward: 'initial', beta: 0.5, estimator: 'exact' }, entropy: { coef: 0.01 } } });
    expect(ticTacToeGame({ klBeta: 0.1, klEstimator: 'k3' }).losses).toEqual({ first: { kl: { toward: 'initial', beta: 0.1, estimator: 'k3' } }, second: { kl: { toward: 'initial', beta: 0.1, estimator: 'k3' } } });
    expect(() => ticTacToeGame({ klBeta: -1 })).toThrow(/CONFIG_INVALID/);
  });
});

describe('kuhn poker', () => {
  const state = (cards: [number, number], history: string): KuhnState => ({ cards, history });

  it('should pay the chips won at every end of the betting', () => {
    const pay = (cards: [number, number], history: string) => kuhnPokerWorld.payoffs(state(cards, history)).first;
    expect(pay([2, 0], 'pp')).toBe(1);
    expect(pay([0, 2], 'pp')).toBe(-1);
    expect(pay([0, 2], 'bp')).toBe(1);
    expect(pay([2, 0], 'pbp')).toBe(-1);
    expect(pay([1, 2], 'bb')).toBe(-2);
    expect(pay([2, 1], 'pbb')).toBe(2);
    for (const h of ['pp', 'bp', 'bb', 'pbp', 'pbb']) expect(kuhnPokerWorld.toMove(state([0, 1], h))).toBeUndefined();
  });

  it('should offer check or bet, and fold or call facing a bet, to the player whose turn it is', () => {
    expect(kuhnPokerWorld.legalMoves(state([0, 1], ''))).toEqual(['check', 'bet']);
    expect(kuhnPokerWorld.toMove(state([0, 1], 'p'))).toBe('second');
    expect(kuhnPokerWorld.legalMoves(state([0, 1], 'pb'))).toEqual(['fold', 'call']);
    expect(kuhnPokerWorld.parse!('I call', ['check', 'bet'], state([0, 1], ''))).toEqual({ kind: 'illegal', why: 'cannot call now' });
  });

  it("should never put the other player's card in a player's prompt", () => {
    for (const history of ['', 'p', 'b', 'pb']) {
      const match = (cards: [number, number]) => ({ ...startWorld('kuhn-poker', kuhnPokerWorld, 0), state: state(cards, history) });
      const mover = kuhnPokerWorld.toMove(state([0, 1], history))!;
      // The mover's own card fixed, the other's changed: the prompt must not change.
      const own = 1;
      const deals: [number, number][] = mover === 'first' ? [[own, 0], [own, 2]] : [[0, own], [2, own]];
      const prompts = deals.map((cards) => worldPrompt(kuhnPokerWorld, match(cards), mover, SPIRAL_FORFEIT));
      expect(prompts[0]).toBe(prompts[1]);
      expect(prompts[0]).toContain('Your card: Q');
    }
  });

  it('should deal two different cards from the seed, by chance events, as the earlier setup dealt them (replays stay exact)', () => {
    const deals = new Set(Array.from({ length: 60 }, (_, seed) => (startWorld('kuhn-poker', kuhnPokerWorld, seed).state as KuhnState).cards.join('')));
    expect([...deals].sort()).toEqual(['01', '02', '10', '12', '20', '21']);
    for (let seed = 0; seed < 2000; seed++) {
      const rng = new Rng(seed);
      const first = rng.int(3);
      const earlier = [first, (first + 1 + rng.int(2)) % 3];
      expect((startWorld('kuhn-poker', kuhnPokerWorld, seed).state as KuhnState).cards).toEqual(earlier);
    }
  });

  const tree = gameTree(kuhnPokerWorld);
  const game = (policy: Parameters<typeof exploitability>[1]) => exploitability(tree, policy);

  it('should prompt alike at every state of an information set, and name its 12 sets', () => {
    expect(tree.informationSets).toHaveLength(12);
    expectPromptsEqualWithinInformationSets(kuhnPokerWorld, tree);
  });

  it('should give every Nash policy of the family exploitability 0 and the game value −1/18, by the generic best response', () => {
    for (const alpha of [0, 1 / 6, 1 / 3]) {
      const measured = game(kuhnNashPolicy(alpha));
      expect(measured.exploitability).toBeCloseTo(0, 12);
      expect(measured.values[0]).toBeCloseTo(-1 / 18, 12);
      expect(bestResponse(tree, kuhnNashPolicy(alpha), 0).value).toBeCloseTo(-1 / 18, 12);
    }
  });

  it("should give the uniform policy OpenSpiel's exploitability of 11/24, and a deviating policy a positive one", () => {
    expect(game(uniformPolicy(tree)).exploitability).toBeCloseTo(11 / 24, 12);
    const alwaysCallJ = { ...kuhnNashPolicy(0), [infoKey('second', 0, 'b')]: { fold: 0, call: 1 } };
    expect(game(alwaysCallJ).exploitability).toBeGreaterThan(0.01);
    // Against a J that always calls, the first player's best response bets its K (5/3 chips a deal against checking's 7/6).
    expect(bestResponse(tree, alwaysCallJ, 0).moves[infoKey('first', 2, '')]).toBe('bet');
  });

  it('should refuse a policy that misses an information set, naming it', () => {
    const { [infoKey('first', 0, '')]: _missing, ...partial } = kuhnNashPolicy(0);
    expect(() => game(partial)).toThrow(/no probability of "check" at "first:J:"/);
  });

  it("should find an equilibrium by CFR+ from the contract alone: exploitability under 0.005 in 1,000 iterations", () => {
    expect(game(cfrPolicy(tree, 1000)).exploitability).toBeLessThan(0.005);
  });

  it('should refuse a tree over the limit with WORLD_TOO_LARGE naming its size', () => {
    let error: unknown;
    try {
      gameTree(kuhnPokerWorld, 20);
    } catch (caught) {
      error = caught;
    }
    expect(LudusError.is(error, 'WORLD_TOO_LARGE')).toBe(true);
    expect((error as LudusError).details).toEqual({ game: 'kuhn-poker', nodes: tree.nodes, limit: 20 });
    expect((error as LudusError).message).toContain(`its game tree has ${tree.nodes} nodes, over the 20`);
  });

  it('should hold every learning seat near its start by default (klBeta KUHN_KL_BETA), and take another β or none from the knobs', () => {
    const kl = (game: ReturnType<typeof kuhnPokerGame>) => Object.fromEntries(Object.entries(game.losses ?? {}).map(([role, terms]) => [role, terms?.kl?.beta]));
    expect(kl(kuhnPokerGame({}))).toEqual({ first: KUHN_KL_BETA, second: KUHN_KL_BETA });
    expect(kl(kuhnPokerGame(undefined))).toEqual({ first: KUHN_KL_BETA, second: KUHN_KL_BETA });
    expect(kl(kuhnPokerGame({ klBeta: 0.1 }))).toEqual({ first: 0.1, second: 0.1 });
    expect(kuhnPokerGame({ klBeta: 0 }).losses).toEqual({});
    expect(() => kuhnPokerGame('loose')).toThrow(/CONFIG_INVALID/);
  });

  it('should play the Nash family as reference opponents, near the game value against each other', () => {
    const game = kuhnPokerGame({});
    const scripted = game.protocol.family === 'world' ? game.protocol.scripted! : {};
    expect(Object.keys(scripted)).toEqual(['random', 'nash', 'nash-bluffer']);
    let total = 0;
    const n = 3000;
    for (let seed = 0; seed < n; seed++) total += worldPayoffs(kuhnPokerWorld, playScriptedMatch(kuhnPokerWorld, { first: policyPlayer(kuhnPokerWorld, kuhnNashPolicy(1 / 6)), second: scripted.nash }, seed), SPIRAL_FORFEIT).first;
    expect(total / n).toBeGreaterThan(-1 / 18 - 0.06);
    expect(total / n).toBeLessThan(-1 / 18 + 0.06);
  });
});

describe('negotiation', () => {
  const start = (values: NegotiationState['values']): NegotiationState => ({ pool: [3, 3], values, claims: [], accepted: false });

  it('should pay each player the share of its own value it receives on a deal, and 0 without one', () => {
    let s = start([[1, 3], [3, 1]]);
    s = negotiationWorld.apply(s, { kind: 'keep', wood: 0, gold: 3 });
    expect(negotiationWorld.legalMoves(s)[0]).toEqual({ kind: 'accept' });
    s = negotiationWorld.apply(s, { kind: 'accept' });
    expect(negotiationWorld.toMove(s)).toBeUndefined();
    expect(negotiationWorld.payoffs(s)).toEqual({ first: 9 / 12, second: 9 / 12 });
    expect(negotiationWorld.labels!(s)).toEqual({ first: { deal: 1 }, second: { deal: 1 } });
    let none = start([[1, 1], [1, 1]]);
    for (let i = 0; i < 6; i++) none = negotiationWorld.apply(none, { kind: 'keep', wood: 3, gold: 3 });
    expect(negotiationWorld.toMove(none)).toBeUndefined();
    expect(negotiationWorld.payoffs(none)).toEqual({ first: 0, second: 0 });
  });

  it('should refuse accepting with nothing on the table and claims beyond the pool', () => {
    const s = start([[1, 3], [3, 1]]);
    expect(negotiationWorld.parse!('accept', negotiationWorld.legalMoves(s), s)).toEqual({ kind: 'illegal', why: 'nothing to accept' });
    expect(negotiationWorld.parse!('keep 4 0', negotiationWorld.legalMoves(s), s).kind).toBe('illegal');
    expect(negotiationWorld.parse!('keep 2 1', negotiationWorld.legalMoves(s), s)).toEqual({ kind: 'move', move: { kind: 'keep', wood: 2, gold: 1 } });
  });

  it("should never put the other player's values in a player's prompt", () => {
    const prompt = (values: NegotiationState['values']) => worldPrompt(negotiationWorld, { ...startWorld('negotiation', negotiationWorld, 0), state: negotiationWorld.apply(start(values), { kind: 'keep', wood: 1, gold: 2 }) }, 'second', SPIRAL_FORFEIT);
    expect(prompt([[1, 2], [3, 1]])).toBe(prompt([[3, 3], [3, 1]]));
    expect(prompt([[1, 2], [3, 1]])).toContain('You value wood 3, gold 1');
  });

  it('should have the bargainer accept a fair claim and otherwise claim what it values', () => {
    const offered = negotiationWorld.apply(start([[1, 3], [3, 1]]), { kind: 'keep', wood: 0, gold: 3 });
    expect(bargainer(playerView(negotiationWorld, offered, 'second') as never)).toEqual({ kind: 'accept' });
    const greedy = negotiationWorld.apply(start([[1, 3], [3, 1]]), { kind: 'keep', wood: 3, gold: 3 });
    expect(bargainer(playerView(negotiationWorld, greedy, 'second') as never)).toEqual({ kind: 'keep', wood: 3, gold: 0 });
    const match = playScriptedMatch(negotiationWorld, { first: bargainer, second: bargainer }, 4);
    expect(resultOf(worldPayoffs(negotiationWorld, match, SPIRAL_FORFEIT), 'first')).toBeDefined();
  });
});

describe('worldMovesTask (the world base\'s supervised data)', () => {
  it('should pair a reachable position\'s prompt with a legal move there, the same for the same index', async () => {
    const { worldMovesTask } = await import('../../core/world/world-moves-task.ts');
    for (const world of [ticTacToeWorld, kuhnPokerWorld, negotiationWorld]) {
      const task = worldMovesTask(world as never, 3);
      for (let i = 0; i < 20; i++) {
        const problem = task.sample('train', i);
        expect(problem).toEqual(task.sample('train', i));
        expect(problem.prompt.endsWith('\nYour move:')).toBe(true);
        expect(problem.solution).toBe(` ${problem.answer}`);
        const legal = /Legal moves: (.*)\n/.exec(problem.prompt)![1];
        if (world !== negotiationWorld) expect(legal.split(', ')).toContain(problem.answer);
        else expect(problem.answer).toMatch(/^(accept|keep [0-3] [0-3])$/);
      }
    }
  });

  it('should with legalLine train the prompt\'s legal-moves line too: the same text, cut after the observation', async () => {
    const { worldMovesTask } = await import('../../core/world/world-moves-task.ts');
    for (const world of [ticTacToeWorld, kuhnPokerWorld, negotiationWorld]) {
      const plain = worldMovesTask(world as never, 3);
      const lined = worldMovesTask(world as never, 3, { legalLine: true });
      for (let i = 0; i < 20; i++) {
        const a = plain.sample('train', i);
        const b = lined.sample('train', i);
        expect(b.prompt + b.solution).toBe(a.prompt + a.solution);
        expect(b.answer).toBe(a.answer);
        expect(b.prompt.endsWith('\n')).toBe(true);
        expect(b.prompt).not.toContain('Legal moves:');
        expect(b.solution).toMatch(/^Legal moves: .*\nYour move: /);
        expect(b.solution.endsWith(` ${b.answer}`)).toBe(true);
      }
    }
  });

  it("should with a teacher make the teacher's move the target at its share of the positions, and refuse a share outside [0, 1]", async () => {
    const { worldMovesTask } = await import('../../core/world/world-moves-task.ts');
    // Facing a bet, the Nash player (α = 0) folds a jack and calls a king: pure moves a uniform target never keeps to.
    const facingBet = (share: number) => {
      const task = worldMovesTask(kuhnPokerWorld as never, 5, { teacher: { player: policyPlayer(kuhnPokerWorld, kuhnNashPolicy(0)), share } });
      const moves: Record<string, Set<string>> = { J: new Set(), K: new Set() };
      for (let i = 0; i < 400; i++) {
        const problem = task.sample('train', i);
        const card = /Your card: ([JQK])/.exec(problem.prompt)![1];
        if (/Legal moves: fold, call/.test(problem.prompt) && card in moves) moves[card].add(problem.answer);
      }
      return moves;
    };
    const taught = facingBet(1);
    expect([[...taught.J], [...taught.K]]).toEqual([['fold'], ['call']]);
    const half = facingBet(0.5);
    expect([half.J.size, half.K.size]).toEqual([2, 2]);
    expect(() => worldMovesTask(kuhnPokerWorld as never, 5, { teacher: { player: policyPlayer(kuhnPokerWorld, kuhnNashPolicy(0)), share: 1.5 } })).toThrow(/share must lie in \[0, 1\]/);
  });
});

describe("moveFormatsTask (the general world base's made-up games)", () => {
  it('should list moves of one or two formats and target one of them, the same for the same index; echo asks for the whole list', async () => {
    const { moveFormatsTask } = await import('../../core/world/move-formats.ts');
    const task = moveFormatsTask(3);
    const echoed = moveFormatsTask(3, { echo: 1 });
    for (let i = 0; i < 200; i++) {
      const problem = task.sample('train', i);
      expect(problem).toEqual(task.sample('train', i));
      expect(problem.prompt).toMatch(/\nLegal moves: [^\n]+\nYour move:$/);
      const listed = /Legal moves: ([^\n]*)\n/.exec(problem.prompt)![1].split(', ');
      expect(listed).toContain(problem.answer);
      expect(problem.solution).toBe(` ${problem.answer}`);
      const echo = echoed.sample('train', i);
      expect(echo.prompt).toBe(problem.prompt.replace(/Your move:$/, 'The legal moves again:'));
      expect(echo.solution).toBe(` ${listed.join(', ')}`);
    }
  });
});
