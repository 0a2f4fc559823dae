import type { Split } from '../../core/tasks/task.ts';

/**
 * The split a problem belongs to, from its canonical text alone (FNV-1a, then a final avalanche),
 * so train and test are disjoint whatever the seed.
 */
export function splitOf(canonical: string): Split {
  let hash = 0x811c9dc5;
  for (let i = 0; i < canonical.length; i++) {
    hash = Math.imul(hash ^ canonical.charCodeAt(i), 0x01000193) >>> 0;
  }
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b) >>> 0;
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35) >>> 0;
  return ((hash ^ (hash >>> 16)) & 1) === 0 ? 'train' : 'test';
}
