import type { Trajectory } from './trajectory.ts';

/** Fraction of the response tokens `author` wrote; 0 for an empty response. */
export function authorShare(trajectory: Pick<Trajectory, 'authors'>, author: number): number {
  const { authors } = trajectory;
  if (authors.length === 0) return 0;
  let count = 0;
  for (const a of authors) if (a === author) count++;
  return count / authors.length;
}
