/**
 * Indices of the tokens that end a reasoning step: every token in `stepBoundary` (ids whose text contains "\n\n"),
 * and the last token, which ends the final step.
 */
export function stepEnds(responseIds: readonly number[], stepBoundary: ReadonlySet<number>): number[] {
  const ends: number[] = [];
  responseIds.forEach((token, t) => {
    if (stepBoundary.has(token)) ends.push(t);
  });
  const last = responseIds.length - 1;
  if (last >= 0 && ends[ends.length - 1] !== last) ends.push(last);
  return ends;
}
