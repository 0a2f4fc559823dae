import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SLOW_TEST_FILES } from '../vitest.quick.config.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('npm run test:quick', () => {
  it('should leave out only files and folders that exist (a renamed slow file must not slip into the quick suite)', () => {
    const missing = SLOW_TEST_FILES.map((pattern) => pattern.replace(/\/\*\*$/, '')).filter((path) => !existsSync(`${ROOT}${path}`));
    expect(missing).toEqual([]);
  });
});
