import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { configReference } from '../../cli/config-reference.ts';

describe('the config reference', () => {
  it('should be what docs/config-reference.md holds (regenerate with `npx ludus config-reference > docs/config-reference.md`)', async () => {
    expect(await readFile(new URL('../../docs/config-reference.md', import.meta.url), 'utf8')).toBe(configReference());
  });

  it('should list every training field with its type, default and meaning', () => {
    const reference = configReference();
    expect(reference).toMatch(/^\| `groupSize` \| integer ≥ 2 ≤ 4096 \| `8` \| G, matches per prompt \(tandem paper §4\.1: 8\); problemsPerStep × groupSize ≤ 4096 \|$/m);
    expect(reference).toMatch(/^\| `game` \| string \| required \| /m);
    expect(reference).toMatch(/^\| `p` \| number ≥ 0 ≤ 1 \| `0\.5` \| .*§3\.3/m);
  });
});
