/**
 * The control for docs/world-games.md ("Kuhn Poker: the target met with a KL toward the start"): the same RAE
 * self-play as `ludus train kuhn-poker` (64 matches a step, both seats trained, one baseline per seat, b ← 0.95·b +
 * 0.05·r per match), but on a tabular policy, one logit per information set, so that no move's gradient reaches
 * another card's. Prints the exact exploitability every 20 steps. It falls from the uniform policy's 0.458 without any
 * KL term, which is why the network's stall at the bet-and-call corner is put down to the moves sharing parameters.
 *
 *   npx tsx tools/kuhn-tabular.ts [steps=200] [lr=0.5] [seed=1]
 */
import { RAE_DECAY } from '../core/advantages/rae.ts';
import { Rng } from '../core/rng.ts';
import { exploitability, type PolicyTable } from '../core/world/exploitability.ts';
import { gameTree } from '../core/world/game-tree.ts';
import { chanceAt, drawChance } from '../core/world/world-moves.ts';
import { infoKey, kuhnPokerWorld, type KuhnState, type Seat } from '../games/kuhn-poker.ts';

const [steps = 200, lr = 0.5, seed = 1] = process.argv.slice(2).map(Number);
if (![steps, lr, seed].every(Number.isFinite) || !Number.isInteger(steps) || steps < 0 || !Number.isInteger(seed)) throw new Error('usage: tools/kuhn-tabular.ts [steps (an integer ≥ 0)] [lr (a number)] [seed (an integer)]');
const MATCHES = 64;
const SEATS = kuhnPokerWorld.players;
const TREE = gameTree(kuhnPokerWorld);
const INFORMATION_SETS = TREE.informationSets;

const keyOf = (state: KuhnState, seat: Seat) => infoKey(seat, state.cards[seat === 'first' ? 0 : 1], state.history);
const logits = new Map<string, number>();
/** The probability of the second legal move (bet or call) at an information set. */
const second = (key: string) => 1 / (1 + Math.exp(-(logits.get(key) ?? 0)));
const table = (): PolicyTable =>
  Object.fromEntries(
    INFORMATION_SETS.map(({ key, state }) => {
      const [a, b] = kuhnPokerWorld.legalMoves(state as KuhnState);
      return [key, { [a]: 1 - second(key), [b]: second(key) }];
    }),
  );

const rng = new Rng(seed);
const baseline: Record<Seat, number> = { first: 0, second: 0 };
for (let step = 0; step <= steps; step++) {
  if (step % 20 === 0) console.log(`step ${step}: exploitability ${exploitability(TREE, table()).exploitability.toFixed(3)}`);
  const gradient = new Map<string, number>();
  for (let m = 0; m < MATCHES; m++) {
    let state = kuhnPokerWorld.setup(rng);
    for (let outcomes = chanceAt(kuhnPokerWorld, state); outcomes.length > 0; outcomes = chanceAt(kuhnPokerWorld, state)) state = drawChance(outcomes, rng).state as KuhnState;
    const taken: { seat: Seat; key: string; score: number }[] = [];
    for (let seat = kuhnPokerWorld.toMove(state); seat !== undefined; seat = kuhnPokerWorld.toMove(state)) {
      const key = keyOf(state, seat);
      const legal = kuhnPokerWorld.legalMoves(state);
      const pick = rng.next() < second(key) ? 1 : 0;
      taken.push({ seat, key, score: pick - second(key) });
      state = kuhnPokerWorld.apply(state, legal[pick]);
    }
    const payoffs = kuhnPokerWorld.payoffs(state);
    for (const { seat, key, score } of taken) gradient.set(key, (gradient.get(key) ?? 0) + (payoffs[seat] - baseline[seat]) * score);
    for (const seat of SEATS) baseline[seat] = RAE_DECAY * baseline[seat] + (1 - RAE_DECAY) * payoffs[seat];
  }
  for (const [key, g] of gradient) logits.set(key, (logits.get(key) ?? 0) + (lr * g) / MATCHES);
}
