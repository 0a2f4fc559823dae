import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendJsonl, readJsonl, trimJsonlAfter } from '../../../engine/trainer/jsonl-log.ts';
import { rejection } from '../../support/errors.ts';

async function logWith(text: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'ludus-jsonl-')), 'metrics.jsonl');
  await writeFile(path, text);
  return path;
}

const collect = () => {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message) };
};

describe('readJsonl', () => {
  describe('having a last line cut short by a crash mid-append', () => {
    it('should drop it and report the file and line', async () => {
      const path = await logWith('{"step":1}\n{"step":2}\n{"step":3,"lo');
      const { warnings, warn } = collect();
      expect(await readJsonl(path, warn)).toEqual([{ step: 1 }, { step: 2 }]);
      expect(warnings).toEqual([expect.stringContaining(`${path}:3: dropped a last line cut short`)]);
    });
  });

  describe('having a complete last line without its newline', () => {
    it('should keep it without a warning', async () => {
      const { warnings, warn } = collect();
      expect(await readJsonl(await logWith('{"step":1}\n{"step":2}'), warn)).toEqual([{ step: 1 }, { step: 2 }]);
      expect(warnings).toEqual([]);
    });
  });

  describe('having a bad line before the last', () => {
    it('should fail with LOG_LINE_INVALID naming the file and the line', async () => {
      const path = await logWith('{"step":1}\n{"step":2,"lo\n{"step":3}\n');
      const error = await rejection(readJsonl(path, collect().warn));
      expect(error.code).toBe('LOG_LINE_INVALID');
      expect(error.message).toContain(`${path}:2: not valid JSON`);
    });
  });

  describe('having a bad last line that ends in a newline (not a torn append)', () => {
    it('should fail with LOG_LINE_INVALID naming the file and the line', async () => {
      const path = await logWith('{"step":1}\nnot json\n');
      expect((await rejection(readJsonl(path, collect().warn))).message).toContain(`${path}:2:`);
    });
  });
});

describe('trimJsonlAfter', () => {
  describe('having lines past the step and a torn last line', () => {
    it('should keep the lines up to the step, drop the rest and report the torn line', async () => {
      const path = await logWith('{"step":1}\n{"step":2}\n{"step":3}\n{"step":4,"lo');
      const { warnings, warn } = collect();
      await trimJsonlAfter(path, 2, warn);
      expect(await readFile(path, 'utf8')).toBe('{"step":1}\n{"step":2}\n');
      expect(warnings).toHaveLength(1);
    });
  });

  describe('having a complete last line without its newline', () => {
    it('should end the file with a newline so the next append starts a line of its own', async () => {
      const path = await logWith('{"step":1}');
      await trimJsonlAfter(path, 1, collect().warn);
      await appendJsonl(path, [{ step: 2 }]);
      expect(await readJsonl(path, collect().warn)).toEqual([{ step: 1 }, { step: 2 }]);
    });
  });

  describe('having a line without a numeric step', () => {
    it('should fail with LOG_LINE_INVALID naming the file and the line', async () => {
      const path = await logWith('{"step":1}\n{"loss":2}\n');
      const error = await rejection(trimJsonlAfter(path, 1, collect().warn));
      expect(error.code).toBe('LOG_LINE_INVALID');
      expect(error.message).toContain(`${path}:2: no numeric "step"`);
    });
  });

  describe('having no file', () => {
    it('should do nothing', async () => {
      const path = join(await mkdtemp(join(tmpdir(), 'ludus-jsonl-')), 'missing.jsonl');
      await trimJsonlAfter(path, 3);
      await expect(readFile(path)).rejects.toThrow();
    });
  });
});
