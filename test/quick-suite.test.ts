import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SERIAL_TEST_FILES, SLOW_TEST_FILES } from './slow-files.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('the groups of the suite (test/slow-files.ts)', () => {
  it('should name only files and folders that exist (a renamed slow file must not slip into the quick suite or run beside another)', () => {
    const missing = [...SLOW_TEST_FILES, ...SERIAL_TEST_FILES].map((pattern) => pattern.replace(/\/\*\*$/, '')).filter((path) => !existsSync(`${ROOT}${path}`));
    expect(missing).toEqual([]);
  });

  it('should run the serial files among the slow ones, which npm run test:quick leaves out', () => {
    expect(SERIAL_TEST_FILES.filter((file) => !SLOW_TEST_FILES.includes(file))).toEqual([]);
  });
});
