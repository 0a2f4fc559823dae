import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { loadTrainingCheckpoint, saveTrainingCheckpoint, type TrainingCheckpoint } from '../../../engine/trainer/training-checkpoint.ts';
import { recoverDirectory, type FileOperation } from '../../../native/io/files.ts';
import { runCrashingAt } from '../../support/crash.ts';
import { trainingCheckpointAt } from './fixtures/training-checkpoint-at.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ludus-crash-save-'));
});
afterAll(async () => rm(root, { recursive: true, force: true }));

let counter = 0;
const freshDir = async () => join(await mkdtemp(join(root, `case${++counter}-`)), 'checkpoint');

/** A digest of everything a training checkpoint holds: two checkpoints with one digest load the same. */
function digest(checkpoint: TrainingCheckpoint<Record<string, unknown>>): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ state: checkpoint.state, tokenizer: checkpoint.tokenizerJson, step: checkpoint.optimizer.step }));
  for (const [name, tensor] of [...checkpoint.weights].sort(([a], [b]) => a.localeCompare(b))) hash.update(name).update(new Uint8Array(tensor.data.buffer));
  for (const moments of [checkpoint.optimizer.m, checkpoint.optimizer.v]) {
    for (const name of Object.keys(moments).sort()) hash.update(name).update(new Uint8Array(moments[name].buffer));
  }
  return hash.digest('hex');
}

const loaded = async (dir: string) => digest(await loadTrainingCheckpoint(dir));
const siblings = async (dir: string) => (await readdir(dirname(dir))).sort();

describe('saveTrainingCheckpoint', () => {
  const old = trainingCheckpointAt(1);
  const next = trainingCheckpointAt(2);
  const [oldDigest, nextDigest] = [digest(old), digest(next)];
  let operations: readonly FileOperation[] = [];

  beforeAll(async () => {
    const dir = await freshDir();
    await saveTrainingCheckpoint(dir, old);
    ({ operations } = await runCrashingAt(undefined, () => saveTrainingCheckpoint(dir, next)));
  });

  it('should go through every kind of file operation a crash can fall between', () => {
    expect(new Set(operations.map((operation) => operation.kind))).toEqual(new Set(['mkdir', 'mkdtemp', 'open', 'write', 'sync', 'close', 'rename', 'remove']));
  });

  describe('having a crash before any one file operation of a save over an older checkpoint', () => {
    it('should load the old or the new checkpoint whole, and recover to the checkpoint alone, which saves again', async () => {
      const outcomes = new Set<string>();
      for (let at = 0; at < operations.length; at++) {
        const dir = await freshDir();
        await saveTrainingCheckpoint(dir, old);
        expect((await runCrashingAt(at, () => saveTrainingCheckpoint(dir, next))).crashed).toBe(true);
        const afterCrash = await loaded(dir);
        expect([oldDigest, nextDigest], `crash before ${JSON.stringify(operations[at])}`).toContain(afterCrash);
        outcomes.add(afterCrash === oldDigest ? 'old' : 'new');

        expect(await recoverDirectory(dir)).toBe(true);
        const recovered = await loaded(dir);
        expect(afterCrash === nextDigest ? [nextDigest] : [oldDigest, nextDigest]).toContain(recovered);
        expect(await siblings(dir)).toEqual([basename(dir)]);

        await saveTrainingCheckpoint(dir, next);
        expect(await loaded(dir)).toBe(nextDigest);
        expect(await siblings(dir)).toEqual([basename(dir)]);
      }
      expect(outcomes).toEqual(new Set(['old', 'new']));
    });
  });

  describe('having a crash before any one file operation of the first save', () => {
    it('should find no checkpoint or the new one whole, and leave nothing else after recovery', async () => {
      const outcomes = new Set<string>();
      for (let at = 0; ; at++) {
        const dir = await freshDir();
        if (!(await runCrashingAt(at, () => saveTrainingCheckpoint(dir, next))).crashed) break;
        const afterCrash = await loadTrainingCheckpoint(dir).then(digest, (error: unknown) => {
          expect(LudusError.is(error, 'CHECKPOINT_MISSING_FILE')).toBe(true);
          return 'none';
        });
        expect(['none', nextDigest]).toContain(afterCrash);
        outcomes.add(afterCrash === 'none' ? 'none' : 'new');
        expect(await recoverDirectory(dir)).toBe(afterCrash !== 'none');
        expect(await siblings(dir)).toEqual(afterCrash === 'none' ? [] : [basename(dir)]);
      }
      expect(outcomes).toEqual(new Set(['none', 'new']));
    });
  });

  describe('having the process killed (SIGKILL) before chosen file operations of a save', () => {
    it('should leave the old or the new checkpoint loadable, as the injected crashes do', async () => {
      const renames = operations.flatMap((operation, i) => (operation.kind === 'rename' ? [i] : []));
      expect(renames).toHaveLength(3);
      const firstWeightWrite = operations.findIndex((operation) => operation.kind === 'write' && operation.path.endsWith('model.safetensors'));
      const points = [firstWeightWrite, renames[0] + 1, renames[1] + 1, renames[2] + 1];
      const seen: string[] = [];
      for (const at of points) {
        const dir = await freshDir();
        await saveTrainingCheckpoint(dir, old);
        expect(await saveInChildKilledAt(dir, at)).toBe('SIGKILL');
        seen.push((await loaded(dir)) === oldDigest ? 'old' : (await loaded(dir)) === nextDigest ? 'new' : 'neither');
      }
      // Filling the temp directory and after the first rename (the old one still in place): old; once the old one
      // is moved away, the complete new one beside it is read.
      expect(seen).toEqual(['old', 'old', 'new', 'new']);
    });
  });
});

const CHILD = fileURLToPath(new URL('./fixtures/save-and-die.ts', import.meta.url));

function saveInChildKilledAt(dir: string, at: number): Promise<NodeJS.Signals | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, String(at)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 || signal ? resolve(signal) : reject(new Error(`save-and-die exited ${code}:\n${stderr}`))));
  });
}
