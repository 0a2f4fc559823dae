import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { loadTaskFile } from '../../../plugins/tasks/jsonl/load-jsonl-task.ts';
import { taskByName } from '../../../plugins/tasks/registry.ts';
import { rejection } from '../../support/errors.ts';

/** A small real parquet file, Snappy-compressed as the Hub's are, with its own column names and an int64 answer. */
async function writeParquet(path: string, rows: { Problem: string; Answer: bigint; source: string }[]): Promise<void> {
  const buffer = parquetWriteBuffer({
    columnData: [
      { name: 'Problem', data: rows.map((r) => r.Problem), type: 'STRING' },
      { name: 'Answer', data: rows.map((r) => r.Answer), type: 'INT64' },
      { name: 'source', data: rows.map((r) => r.source), type: 'STRING' },
    ],
  });
  await writeFile(path, new Uint8Array(buffer));
}

const sums = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ Problem: `What is ${from + i} plus 3?`, Answer: BigInt(from + i + 3), source: 'made-here' }));

describe('a data set in Hugging Face\'s parquet layout', () => {
  describe('having a directory as push_to_hub writes it, and a column mapping in the task file', () => {
    it('should read each split from its files, answers from the mapped int64 column, the other columns into meta', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-parquet-'));
      await mkdir(join(dir, 'sums', 'data'), { recursive: true });
      await writeParquet(join(dir, 'sums', 'data', 'train-00000-of-00002.parquet'), sums(0, 3));
      await writeParquet(join(dir, 'sums', 'data', 'train-00001-of-00002.parquet'), sums(3, 2));
      await writeParquet(join(dir, 'sums', 'data', 'test-00000-of-00001.parquet'), sums(100, 2));
      expect((await readFile(join(dir, 'sums', 'data', 'test-00000-of-00001.parquet'))).subarray(0, 4).toString()).toBe('PAR1');
      await writeFile(join(dir, 'sums.json'), JSON.stringify({ dataset: 'sums', columns: { problem: 'Problem', answer: 'Answer' } }));
      const task = await loadTaskFile(join(dir, 'sums.json'));
      expect(task.size('train')).toBe(5);
      expect(task.size('test')).toBe(2);
      const train = task.problems('train', 5);
      expect(train.map((p) => p.answer)).toEqual(['3', '4', '5', '6', '7']);
      expect(train[0].question).toBe('What is 0 plus 3?');
      expect(train[0].meta).toMatchObject({ source: 'made-here', line: 1 });
      expect(train[0].meta).not.toHaveProperty('Problem');
      expect(task.problems('test', 2).map((p) => p.answer)).toEqual(['103', '104']);
    });
  });

  describe('having one parquet file named as a task, with options beside it', () => {
    it('should read it as the test split, with the columns mapped', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-parquet-'));
      const file = join(dir, 'held-out.parquet');
      await writeParquet(file, sums(7, 4));
      const task = await taskByName(file, { columns: { problem: 'Problem', answer: 'Answer' } });
      expect(task.name).toBe('held-out');
      expect(task.problems('test', 4).map((p) => p.answer)).toEqual(['10', '11', '12', '13']);
    });
  });

  describe('having a mapping that names a column the file lacks', () => {
    it('should fail with DATA_INVALID naming the column and the ones it has', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-parquet-'));
      const file = join(dir, 'set.parquet');
      await writeParquet(file, sums(0, 1));
      const error = await rejection(taskByName(file, { columns: { problem: 'question' } }));
      expect(error.code).toBe('DATA_INVALID');
      expect(error.message).toContain(`${file}:1: has no column "question" (columns.problem); its columns: Problem, Answer, source`);
    });
  });
});
