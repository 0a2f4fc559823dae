/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The name a mistyped `name` most likely meant: one it is a prefix of (or that is a prefix of it, from 3 letters), else
 * the nearest within a third of its length in edits (at least one), case aside; undefined when none is that near.
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const near = (candidate: string): number => {
    const c = candidate.toLowerCase();
    if (lower.length >= 3 && (c.startsWith(lower) || lower.startsWith(c))) return 0;
    return editDistance(lower, c);
  };
  const ranked = candidates
    .filter((candidate) => candidate !== name)
    .map((candidate) => ({ candidate, distance: near(candidate) }))
    .filter(({ candidate, distance }) => distance <= Math.max(1, Math.floor(Math.max(candidate.length, name.length) / 3)))
    .sort((a, b) => a.distance - b.distance);
  return ranked[0]?.candidate;
}
