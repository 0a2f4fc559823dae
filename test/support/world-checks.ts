import { expect } from 'vitest';
import type { GameTree, TreeNode } from '../../core/world/game-tree.ts';
import { startWorld, worldPrompt } from '../../core/world/world-match.ts';
import { SPIRAL_FORFEIT, type AnyWorld } from '../../core/world/world.ts';

/**
 * Every decision node of the tree prompts its mover exactly as every other node of its information set does: what a
 * model is given never tells apart states its player cannot (hidden cards, a simultaneous move not yet revealed).
 */
export function expectPromptsEqualWithinInformationSets(world: AnyWorld, tree: GameTree): void {
  const prompts = new Map<string, string>();
  const base = startWorld(world.id, world, 0);
  const visit = (node: TreeNode): void => {
    if (node.kind === 'chance') for (const o of node.outcomes) visit(o.child);
    if (node.kind !== 'decision') return;
    const prompt = worldPrompt(world, { ...base, state: node.state }, world.players[node.player], SPIRAL_FORFEIT);
    const known = prompts.get(node.key);
    if (known === undefined) prompts.set(node.key, prompt);
    else expect(prompt, `information set ${node.key}`).toBe(known);
    for (const move of node.moves) visit(move.child);
  };
  visit(tree.root);
  expect(prompts.size).toBe(tree.informationSets.length);
}
