import { mkdir, mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomically } from '../../../native/io/files.ts';

describe('writeFileAtomically', () => {
  describe('having a new path in a directory that does not exist yet', () => {
    it('should create the directory and write the file, leaving no temp file', async () => {
      const dir = join(await mkdtemp(join(tmpdir(), 'ludus-atomic-')), 'nested');
      await writeFileAtomically(join(dir, 'a.txt'), 'first');
      await writeFileAtomically(join(dir, 'a.txt'), new Uint8Array([0x73, 0x65, 0x63, 0x6f, 0x6e, 0x64]));
      expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('second');
      expect(await readdir(dir)).toEqual(['a.txt']);
    });
  });

  describe('having a target that cannot be replaced (a directory)', () => {
    it('should fail and remove its temp file', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-atomic-'));
      await mkdir(join(dir, 'taken'));
      await expect(writeFileAtomically(join(dir, 'taken'), 'x')).rejects.toThrow();
      expect(await readdir(dir)).toEqual(['taken']);
    });
  });
});
