import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { taskByName } from '../../../plugins/tasks/registry.ts';

describe('taskByName', () => {
  describe('having a generator name and its options', () => {
    it('should build that task with those options', async () => {
      const arithmetic = await taskByName('arithmetic', { minDigits: 1, maxDigits: 1, operations: ['mul'] });
      expect(arithmetic.name).toBe('arithmetic');
      expect(arithmetic.sample('train', 0).prompt).toMatch(/^Question: What is \d times \d\?/);
      const lastLetter = await taskByName('last-letter', { seed: 3 });
      expect(lastLetter.sample('test', 0)).toEqual((await taskByName('last-letter', { seed: 3 })).sample('test', 0));
      expect(lastLetter.corrupt).toBeTypeOf('function');
    });
  });

  describe('having a path ending in .jsonl', () => {
    it('should load the file as a task', async () => {
      const task = await taskByName(join(import.meta.dirname, '../../fixtures/tasks/gsm8k.jsonl'), { name: 'gsm' });
      expect(task.name).toBe('gsm');
      expect(task.size('test')).toBe(2);
    });
  });

  describe('having an unknown name', () => {
    it('should fail with CONFIG_INVALID listing the known names', async () => {
      await expect(taskByName('chess')).rejects.toThrow(/CONFIG_INVALID.*"chess".*arithmetic, last-letter, world, multiplication, <path>\.jsonl, <path>\.parquet/);
    });
  });

  describe('having an option the task does not know', () => {
    it('should fail with CONFIG_INVALID', async () => {
      await expect(taskByName('last-letter', { maxDigits: 3 })).rejects.toThrow(/CONFIG_INVALID.*task "last-letter"/);
    });
  });
});
