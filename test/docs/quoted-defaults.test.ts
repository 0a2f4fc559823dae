import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TrainConfigSchema } from '../../engine/trainer/train-config.js';
import { markdownFiles } from '../support/markdown-links.js';

const root = resolve(import.meta.dirname, '../..');

/** Every "N problems × M matches a step (`a` × `b`, their defaults)" claim of a text, checked against `defaults`. */
function wrongQuotedDefaults(text: string, defaults: Record<string, unknown>): string[] {
  const claim = /(\d+) problems × (\d+) matches a step \(`(\w+)` × `(\w+)`, their defaults\)/g;
  const wrong: string[] = [];
  for (const [, n, m, a, b] of text.matchAll(claim)) {
    if (defaults[a!] !== Number(n) || defaults[b!] !== Number(m)) {
      wrong.push(`${n} × ${m} quoted for ${a} × ${b}, defaults are ${String(defaults[a!])} × ${String(defaults[b!])}`);
    }
  }
  return wrong;
}

describe('defaults the docs quote', () => {
  const defaults = Object.fromEntries(
    Object.entries(TrainConfigSchema.shape).map(([key, field]) => [key, (field as { safeParse(v: unknown): { data?: unknown } }).safeParse(undefined).data]),
  );

  it("the guide's problems × matches a step is the config schema's default, and so is every other quote of it", () => {
    const guide = readFileSync(resolve(root, 'docs/games.md'), 'utf8');
    expect(guide).toMatch(/problems × \d+ matches a step \(`problemsPerStep`/);
    for (const file of [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))]) {
      expect(wrongQuotedDefaults(readFileSync(file, 'utf8'), defaults), file).toEqual([]);
    }
  });

  it('the check fails on a wrong quoted default', () => {
    const text = '`ludus train` plays 4 problems × 8 matches a step (`problemsPerStep` × `groupSize`, their defaults).';
    expect(wrongQuotedDefaults(text, defaults)).toHaveLength(1);
  });
});
