import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, writeFileSync } from 'node:fs';
import { appendFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveCheckpoint } from '../../../native/io/checkpoint.ts';
import { LOCK_FILE } from '../../../native/io/dir-lock.ts';
import { setFileOperationHook, type FileOperation } from '../../../native/io/files.ts';
import { EVENT_FILE_PREFIX } from '../../../native/io/tensorboard.ts';
import { initWeights, presetConfig } from '../../../native/model/presets.ts';
import { DEFAULT_MODELS_DIR } from '../../../plugins/policies/default-model.ts';
import { prepareRunDir } from '../../../engine/trainer/run-dir.ts';
import { TrainConfigSchema, type TrainConfig } from '../../../engine/trainer/train-config.ts';
import { runTraining } from '../../support/training.ts';

let root: string;
let config: TrainConfig;

/** A one-layer model on the shipped tokenizer, so a save has few tensors and a run starts fast. */
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ludus-train-crash-'));
  const model = join(root, 'model');
  const shipped = JSON.parse(await readFile(join(DEFAULT_MODELS_DIR, 'arithmetic', 'config.json'), 'utf8')) as { vocab_size: number };
  const modelConfig = presetConfig('qwen3-micro', { vocab_size: shipped.vocab_size, max_position_embeddings: 320, num_hidden_layers: 1 });
  await saveCheckpoint(model, modelConfig, initWeights(modelConfig, 5), { extraFiles: { 'tokenizer.json': await readFile(join(DEFAULT_MODELS_DIR, 'arithmetic', 'tokenizer.json')) } });
  // The run budget pinned: chosen from the memory free when a run starts, it would differ between a run killed before
  // its first checkpoint and its restart on a machine whose free memory moved (the state records it).
  config = TrainConfigSchema.parse({ game: 'tandem', model, steps: 2, problemsPerStep: 1, groupSize: 2, maxNewTokens: 12, checkpointEvery: 1, validateEvery: 1, validationProblems: 2, finalComparison: 0, runBudgetBytes: 2 ** 30 });
});
afterAll(async () => rm(root, { recursive: true, force: true }));

/** A process that has run and exited: what a killed run's lock file names. */
const killedPid = spawnSync(process.execPath, ['-e', '']).pid;

const run = (out: string, resume: boolean | 'if-checkpoint', hook?: (operation: FileOperation) => void) => {
  setFileOperationHook(hook);
  return runTraining(config, { out, resume }).finally(() => setFileOperationHook(undefined));
};

/** Every file under `dir` (hidden temp folders included) with its bytes: two directories with one digest are the same. */
async function digestOf(dir: string): Promise<string> {
  const hash = createHash('sha256');
  if (!existsSync(dir)) return 'missing';
  const entries = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  for (const path of entries.map((entry) => join(entry.parentPath, entry.name)).sort()) hash.update(relative(dir, path)).update(await readFile(path));
  return hash.digest('hex');
}

/** What a finished run leaves, timings aside. */
async function finalState(out: string): Promise<Record<string, string>> {
  const lines = async (file: string) =>
    (await readFile(join(out, file), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.stringify({ ...(JSON.parse(line) as object), seconds: undefined }));
  const bytes = async (file: string) => createHash('sha256').update(await readFile(join(out, file))).digest('hex');
  return {
    weights: await bytes('checkpoint/policies/senior/model.safetensors'),
    optimizer: await bytes('checkpoint/policies/senior/optimizer.safetensors'),
    state: await readFile(join(out, 'checkpoint', 'trainer_state.json'), 'utf8'),
    best: await bytes('best/senior/model.safetensors'),
    metrics: (await lines('metrics.jsonl')).join('\n'),
    transcripts: (await lines('transcripts.jsonl')).join('\n'),
    validation: (await lines('validation.jsonl')).join('\n'),
    // TensorBoard's event files are one per process that worked on the run, named by time and pid: their names differ.
    entries: (await readdir(out)).filter((name) => !name.startsWith(EVENT_FILE_PREFIX)).sort().join(' '),
    eventFiles: (await readdir(out)).some((name) => name.startsWith(EVENT_FILE_PREFIX)) ? 'present' : 'missing',
  };
}

describe('train, killed at any file operation and resumed', () => {
  it('should end in the same state as a run that was never interrupted', async () => {
    // The directory as it stands before each file operation of an uninterrupted run is what a kill there leaves
    // (every earlier operation has completed; nothing after it has started).
    const straight = join(root, 'straight');
    // Once the first checkpoint is in place, --resume must continue from a checkpoint; before, the run starts over.
    const snapshots: { out: string; before: FileOperation; resume: true | 'if-checkpoint' }[] = [];
    let checkpointed = false;
    await run(straight, false, (operation) => {
      const out = join(root, `killed-${snapshots.length}`);
      if (existsSync(straight)) cpSync(straight, out, { recursive: true });
      // The killed process's lock stays behind, naming a process that no longer runs: the resumed run takes it over.
      if (existsSync(join(out, LOCK_FILE))) writeFileSync(join(out, LOCK_FILE), JSON.stringify({ pid: killedPid, host: hostname(), started: 'the killed run' }));
      checkpointed ||= existsSync(join(straight, 'checkpoint', 'trainer_state.json'));
      snapshots.push({ out, before: operation, resume: checkpointed || 'if-checkpoint' });
    });
    const expected = await finalState(straight);
    expect(new Set(snapshots.map((snapshot) => snapshot.before.kind))).toEqual(new Set(['mkdir', 'mkdtemp', 'open', 'write', 'sync', 'close', 'rename', 'remove']));

    // A kill in the middle of an append: half a line at the end of the metrics log.
    const midAppend = snapshots.filter((snapshot) => snapshot.before.kind === 'write' && snapshot.before.path.endsWith('metrics.jsonl')).at(-1)!;
    const torn = join(root, 'torn');
    cpSync(midAppend.out, torn, { recursive: true });
    await appendFile(join(torn, 'metrics.jsonl'), '{"step":2,"reward_me');
    snapshots.push({ ...midAppend, out: torn });

    // The resumed run's only input is the directory after recovery: kills that leave the same one resume the same.
    const byDigest = new Map<string, { out: string; resume: true | 'if-checkpoint' }>();
    for (const snapshot of snapshots) {
      // Recovers what the kill interrupted; refuses (NOTHING_TO_RESUME) where a checkpoint had been made but is lost.
      const resume = (await prepareRunDir(snapshot.out, { resume: snapshot.resume })) || 'if-checkpoint';
      byDigest.set(`${resume} ${await digestOf(snapshot.out)}`, { out: snapshot.out, resume });
    }
    expect(byDigest.size).toBeGreaterThan(8);
    for (const { out, resume } of byDigest.values()) {
      await run(out, resume);
      expect(await finalState(out), `resumed from ${out}`).toEqual(expected);
    }
  });
});
