import { fail } from '../../../core/errors.ts';
import { Rng, deriveSeed } from '../../../core/rng.ts';
import type { Problem, Split, Task } from '../../../core/tasks/task.ts';

function shuffledOrder(size: number, seed: number): number[] {
  const order = Array.from({ length: size }, (_, i) => i);
  const rng = new Rng(deriveSeed(seed, size));
  for (let i = size - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/**
 * A fixed list of problems as one split. Without a seed, indices follow the list; with one,
 * a seeded permutation of it. Indices past the end wrap around, one epoch after another.
 */
export function finiteTask(name: string, split: Split, list: readonly Problem[]): Task {
  const orders = new Map<number, number[]>();
  const orderFor = (seed: number) => orders.get(seed) ?? orders.set(seed, shuffledOrder(list.length, seed)).get(seed)!;
  const requireSplit = (asked: Split) => {
    if (asked !== split) fail('INPUT_INVALID', `task "${name}" holds only a ${split} split, not ${asked}`, { split: asked });
  };
  const sample = (asked: Split, index: number, seed?: number): Problem => {
    requireSplit(asked);
    if (!Number.isSafeInteger(index) || index < 0) fail('INPUT_INVALID', `${name}: problem index ${index} is not a non-negative integer`, { index });
    const position = index % list.length;
    return list[seed === undefined ? position : orderFor(seed)[position]];
  };
  return {
    name,
    size: (asked) => (asked === split ? list.length : 0),
    sample,
    problems: (asked, count, seed) => {
      requireSplit(asked);
      return Array.from({ length: Math.min(count, list.length) }, (_, index) => sample(asked, index, seed));
    },
  };
}
