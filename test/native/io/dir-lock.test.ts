import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { LOCK_FILE, lockDirectory, withDirectoryLock } from '../../../native/io/dir-lock.ts';
import { runTraining, tinyConfig } from '../../support/training.ts';

const fresh = () => mkdtempSync(join(tmpdir(), 'dir-lock-'));

/** A pid no process holds: one that has run and exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('lockDirectory (one writer per run or experiment directory)', () => {
  it('should refuse a second writer while the first holds the directory, naming the holder, and admit one after release', async () => {
    const dir = fresh();
    const first = await lockDirectory(dir, 'training run');
    const refused = await lockDirectory(dir, 'training run').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LudusError);
    expect((refused as LudusError).code).toBe('RUN_LOCKED');
    expect((refused as LudusError).message).toContain(`process ${process.pid} on ${hostname()}`);
    await first.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    const second = await lockDirectory(dir, 'training run');
    await second.release();
  });

  it('should refuse a directory that another live process holds', async () => {
    const dir = fresh();
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: holder.pid, host: hostname(), started: 'then' }));
      await expect(lockDirectory(dir, 'experiment')).rejects.toMatchObject({ code: 'RUN_LOCKED' });
    } finally {
      holder.kill();
    }
  });

  it('should take over a lock whose process no longer runs (killed, out of memory), and leave no lock behind', async () => {
    const dir = fresh();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: await deadPid(), host: hostname(), started: 'then' }));
    const result = await withDirectoryLock(dir, 'experiment', async () => JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid);
    expect(result).toBe(process.pid);
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it("should refuse another machine's lock, whose process it cannot check, and say how to clear it", async () => {
    const dir = fresh();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 1, host: 'elsewhere', started: 'then' }));
    await expect(lockDirectory(dir, 'training run')).rejects.toThrow(/elsewhere.*delete/);
  });

  it('should leave no directory behind where it made one and nothing was written', async () => {
    const dir = join(fresh(), 'run');
    await withDirectoryLock(dir, 'training run', async () => undefined);
    expect(existsSync(dir)).toBe(false);
    await withDirectoryLock(dir, 'training run', async () => writeFileSync(join(dir, 'metrics.jsonl'), ''));
    expect(existsSync(join(dir, 'metrics.jsonl'))).toBe(true);
  });

  it('should release the lock when the body throws', async () => {
    const dir = fresh();
    await expect(withDirectoryLock(dir, 'training run', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('should keep a training out of a run directory that another writer holds, before it writes anything there', async () => {
    const dir = fresh();
    const lock = await lockDirectory(dir, 'training run');
    try {
      await expect(runTraining(tinyConfig({ steps: 1 }), { out: dir })).rejects.toMatchObject({ code: 'RUN_LOCKED' });
      expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toContain(`"pid":${process.pid}`);
    } finally {
      await lock.release();
    }
  });
});
