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
 * Fixed lists of problems, one per split the set has. Without a seed, indices follow a list; with one, a seeded
 * permutation of it. Indices past the end wrap around, one epoch after another.
 */
export function finiteTask(name: string, splits: Partial<Record<Split, readonly Problem[]>>): Task {
  const orders = new Map<string, number[]>();
  const listOf = (asked: Split): readonly Problem[] => {
    const list = splits[asked];
    if (list === undefined || list.length === 0) {
      const held = (Object.keys(splits) as Split[]).filter((split) => (splits[split]?.length ?? 0) > 0);
      fail('INPUT_INVALID', `task "${name}" holds only a ${held.join(' and a ')} split, not ${asked}`, { split: asked });
    }
    return list!;
  };
  const orderFor = (split: Split, size: number, seed: number) => {
    const key = `${split} ${seed}`;
    return orders.get(key) ?? orders.set(key, shuffledOrder(size, seed)).get(key)!;
  };
  const sample = (asked: Split, index: number, seed?: number): Problem => {
    const list = listOf(asked);
    if (!Number.isSafeInteger(index) || index < 0) fail('INPUT_INVALID', `${name}: problem index ${index} is not a non-negative integer`, { index });
    const position = index % list.length;
    return list[seed === undefined ? position : orderFor(asked, list.length, seed)[position]];
  };
  return {
    name,
    size: (asked) => splits[asked]?.length ?? 0,
    sample,
    problems: (asked, count, seed) => Array.from({ length: Math.min(count, listOf(asked).length) }, (_, index) => sample(asked, index, seed)),
  };
}
