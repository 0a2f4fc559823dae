import type { Split } from '../../core/tasks/task.ts';

/**
 * The split a problem belongs to, from its canonical text alone (FNV-1a, then a final avalanche), so the splits are
 * disjoint whatever the seed: half of all problems are test, the other half is cut into train (3/4 of it) and
 * validation (1/4). The test half is the one it was before validation existed, so test sets did not change.
 */
export function splitOf(canonical: string): Split {
  let hash = 0x811c9dc5;
  for (let i = 0; i < canonical.length; i++) {
    hash = Math.imul(hash ^ canonical.charCodeAt(i), 0x01000193) >>> 0;
  }
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b) >>> 0;
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35) >>> 0;
  hash = (hash ^ (hash >>> 16)) >>> 0;
  if ((hash & 1) === 1) return 'test';
  return (hash >>> 1) % 4 === 0 ? 'validation' : 'train';
}
