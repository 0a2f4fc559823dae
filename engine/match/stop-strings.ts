import { fail } from '../../core/errors.ts';

/**
 * Ends a row once its text ends with one of its stop strings (a sequential turn's `stop`); undefined when no row has
 * any. The predicate sees the row's tokens so far, the token just emitted last.
 */
export function stopStringMatcher(
  decode: ((ids: number[]) => string) | undefined,
  stops: readonly (readonly string[])[] | undefined,
): ((row: number, tokens: readonly number[]) => boolean) | undefined {
  if (!stops || stops.every((list) => list.length === 0)) return undefined;
  const decodeIds = decode ?? fail('INPUT_INVALID', 'a rollout call with stop strings must say how its tokens decode (RolloutCall.decode)', { field: 'decode' });
  const longest = Math.max(...stops.flat().map((stop) => stop.length));
  return (row, tokens) => {
    const list = stops[row] ?? [];
    if (list.length === 0) return false;
    // A stop string of n characters spans at most n tokens (each token holds at least one character); an earlier
    // occurrence in the tail would have ended the row a step before.
    const tail = decodeIds(tokens.slice(-longest - 1));
    return list.some((stop) => tail.includes(stop));
  };
}
