import type { GameTree, TreeNode } from './game-tree.ts';
import type { PolicyTable } from './exploitability.ts';

/**
 * An approximate equilibrium of a small game by CFR+ (Tammelin 2014: regret matching with regrets floored at 0,
 * alternating updates, the average policy weighted by iteration), over the whole tree. In two-player zero-sum games
 * its average policy's exploitability falls towards 0 with the iterations; elsewhere it is a strong heuristic
 * opponent, not an equilibrium.
 */
export function cfrPolicy(tree: GameTree, iterations: number): PolicyTable {
  const regrets = new Map<string, Float64Array>();
  const sums = new Map<string, Float64Array>();
  for (const set of tree.informationSets) {
    regrets.set(set.key, new Float64Array(set.moves.length));
    sums.set(set.key, new Float64Array(set.moves.length));
  }
  const strategy = (key: string): Float64Array => {
    const r = regrets.get(key)!;
    const total = r.reduce((a, b) => a + b, 0);
    return total > 0 ? r.map((x) => x / total) : r.map(() => 1 / r.length);
  };
  const players = tree.world.players.length;
  for (let t = 1; t <= iterations; t++) {
    for (let p = 0; p < players; p++) {
      const deltas = new Map<string, Float64Array>();
      const walk = (node: TreeNode, own: number, others: number): number => {
        if (node.kind === 'terminal') return node.payoffs[p];
        if (node.kind === 'chance') return node.outcomes.reduce((sum, o) => sum + o.probability * walk(o.child, own, others * o.probability), 0);
        const sigma = strategy(node.key);
        // Every branch is walked, one the opponents never take included: the player's average policy below it is still
        // accumulated by its own reach, which is what a best response against it can reach.
        if (node.player !== p) return node.moves.reduce((sum, move, a) => sum + sigma[a] * (move.rewards[p] + walk(move.child, own, others * sigma[a])), 0);
        const utilities = node.moves.map((move, a) => move.rewards[p] + walk(move.child, own * sigma[a], others));
        const v = utilities.reduce((sum, u, a) => sum + sigma[a] * u, 0);
        const s = sums.get(node.key)!;
        let d = deltas.get(node.key);
        if (!d) deltas.set(node.key, (d = new Float64Array(s.length)));
        for (let a = 0; a < s.length; a++) {
          d[a] += others * (utilities[a] - v);
          s[a] += t * own * sigma[a];
        }
        return v;
      };
      walk(tree.root, 1, 1);
      for (const [key, d] of deltas) {
        const r = regrets.get(key)!;
        for (let a = 0; a < r.length; a++) r[a] = Math.max(0, r[a] + d[a]);
      }
    }
  }
  return Object.fromEntries(
    tree.informationSets.map((set) => {
      const s = sums.get(set.key)!;
      const total = s.reduce((a, b) => a + b, 0);
      return [set.key, Object.fromEntries(set.moves.map((id, a) => [id, total > 0 ? s[a] / total : 1 / set.moves.length]))];
    }),
  );
}
