import { mkdir, mkdtemp, readdir, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareRunDir } from '../../../engine/trainer/run-dir.ts';
import { saveTrainingCheckpoint } from '../../../engine/trainer/training-checkpoint.ts';
import { rejection } from '../../support/errors.ts';
import { trainingCheckpointAt } from '../../native/io/fixtures/training-checkpoint-at.ts';

const freshOut = async () => join(await mkdtemp(join(tmpdir(), 'ludus-run-dir-')), 'run');

async function runWithCheckpoint(): Promise<string> {
  const out = await freshOut();
  await saveTrainingCheckpoint(join(out, 'checkpoint'), trainingCheckpointAt(3));
  await writeFile(join(out, 'metrics.jsonl'), '{"step":3}\n');
  return out;
}

describe('prepareRunDir', () => {
  describe('having a new run', () => {
    it('should accept a missing or an empty directory and write nothing', async () => {
      const out = await freshOut();
      expect(await prepareRunDir(out, { resume: false })).toBe(false);
      await mkdir(out);
      expect(await prepareRunDir(out, { resume: false })).toBe(false);
      expect(await readdir(out)).toEqual([]);
    });

    it('should refuse a directory that holds a run with RUN_DIR_NOT_EMPTY saying how to go on', async () => {
      const out = await runWithCheckpoint();
      const error = await rejection(prepareRunDir(out, { resume: false }));
      expect(error.code).toBe('RUN_DIR_NOT_EMPTY');
      expect(error.message).toContain(`${out}: already holds files (checkpoint, metrics.jsonl); continue that run with --resume, start it over with --restart, or give a new or empty --out`);
    });

    it('should refuse a file with INPUT_INVALID', async () => {
      const out = await freshOut();
      await writeFile(out, 'x');
      expect((await rejection(prepareRunDir(out, { resume: false }))).code).toBe('INPUT_INVALID');
    });
  });

  describe('having --resume', () => {
    it('should continue a run with a checkpoint', async () => {
      expect(await prepareRunDir(await runWithCheckpoint(), { resume: true })).toBe(true);
    });

    it('should refuse a run without one with NOTHING_TO_RESUME, on a missing or a non-empty directory', async () => {
      const missing = await freshOut();
      const error = await rejection(prepareRunDir(missing, { resume: true }));
      expect(error.code).toBe('NOTHING_TO_RESUME');
      expect(error.message).toContain('start the run without --resume');
      const started = await freshOut();
      await mkdir(started);
      await writeFile(join(started, 'metrics.jsonl'), '{"step":1}\n');
      expect((await rejection(prepareRunDir(started, { resume: true }))).message).toContain('the run stopped before its first checkpoint: start it over in place with --restart instead of --resume');
      expect(await readdir(started)).toEqual(['metrics.jsonl']);
    });

    it('should finish a save a crash interrupted and remove its temp folders, for checkpoint/ and each best/<policy>', async () => {
      const out = await runWithCheckpoint();
      await rename(join(out, 'checkpoint'), join(out, '.checkpoint.next'));
      await mkdir(join(out, '.checkpoint.writing-abc123'));
      await mkdir(join(out, 'best', '.senior.writing-def456'), { recursive: true });
      expect(await prepareRunDir(out, { resume: true, best: ['senior'] })).toBe(true);
      expect((await readdir(out)).sort()).toEqual(['best', 'checkpoint', 'metrics.jsonl']);
      expect(await readdir(join(out, 'best'))).toEqual([]);
    });
  });

  describe("having 'restart' (--restart)", () => {
    it('should drop the checkpoint and best/ of a run directory, keeping its logs for the trainer to empty', async () => {
      const out = await runWithCheckpoint();
      await mkdir(join(out, 'best', 'senior'), { recursive: true });
      expect(await prepareRunDir(out, { resume: 'restart', best: ['senior'] })).toBe(false);
      expect(await readdir(out)).toEqual(['metrics.jsonl']);
    });

    it('should refuse a directory that holds no run with RUN_DIR_NOT_EMPTY, deleting nothing', async () => {
      const out = await freshOut();
      await mkdir(out);
      await writeFile(join(out, 'notes.txt'), 'mine');
      const error = await rejection(prepareRunDir(out, { resume: 'restart' }));
      expect(error.code).toBe('RUN_DIR_NOT_EMPTY');
      expect(error.message).toContain('--restart only starts over a run directory');
      expect(await readdir(out)).toEqual(['notes.txt']);
    });
  });

  describe("having 'if-checkpoint' (a caller that owns the directory)", () => {
    it('should continue from a checkpoint, or start over dropping a best/ left by the lost attempt', async () => {
      expect(await prepareRunDir(await runWithCheckpoint(), { resume: 'if-checkpoint' })).toBe(true);
      const out = await freshOut();
      await mkdir(join(out, 'best'), { recursive: true });
      await writeFile(join(out, 'metrics.jsonl'), '{"step":1}\n');
      expect(await prepareRunDir(out, { resume: 'if-checkpoint' })).toBe(false);
      expect(await readdir(out)).toEqual(['metrics.jsonl']);
    });
  });
});
