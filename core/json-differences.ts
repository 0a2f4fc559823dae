/** One leaf where two JSON values differ: its dotted path and both values as JSON (`absent` where one side lacks it). */
export interface JsonDifference {
  readonly path: string;
  readonly before: string;
  readonly after: string;
}

const shown = (value: unknown): string => (value === undefined ? 'absent' : JSON.stringify(value));
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Every leaf where `after` differs from `before`, in key order, descending into objects (arrays are compared whole,
 * as a list of plugins or seats is one setting). Fields set to `undefined` count as absent, as JSON writes them.
 */
export function jsonDifferences(before: unknown, after: unknown, path = ''): JsonDifference[] {
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => jsonDifferences(before[key], after[key], path === '' ? key : `${path}.${key}`));
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  return [{ path: path === '' ? '(whole value)' : path, before: shown(before), after: shown(after) }];
}
