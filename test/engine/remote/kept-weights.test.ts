import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrainConfigInput } from '../../../engine/trainer/train-config.ts';
import type { TrainRun } from '../../../engine/trainer/trainer.ts';
import type { ModelServer } from '../../../server/model-server/model-server.ts';
import { TorchEngine } from '../../../server/trainer-server/learner-engines.ts';
import { startTrainerServer, type TrainerServer } from '../../../server/trainer-server/trainer-server.ts';
import { farApart, relativeL2 } from '../../support/closeness.ts';
import { startTestModelServer } from '../../support/model-server.ts';
import { pythonMissing, PYTHON } from '../../support/optional.ts';
import { TEST_TOKEN, useTestToken } from '../../support/server-token.ts';
import { jsonl, runMetrics, runTraining, tinyConfig } from '../../support/training.ts';

useTestToken();

/** Byte equality of two files' contents (Buffer.equals: a deep toEqual over 12 MB runs for minutes). */
const sameBytes = (a: Buffer, b: Buffer): boolean => a.equals(b);

/**
 * Rollouts on a `ludus serve-model`, learning on a `ludus serve-trainer` (both on loopback): the trained weights stay
 * with the trainer server, which writes each version where the rollout server loads it and writes the checkpoint's
 * weights and moments itself; only paths, fingerprints and the batches cross the link.
 */
describe('weights kept where they are used: remote rollouts learning through a trainer server', () => {
  let rollouts: ModelServer;
  let trainer: TrainerServer;
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'ludus-kept-'));
    rollouts = await startTestModelServer({ allowDirs: [root] });
    trainer = await startTrainerServer({ host: '127.0.0.1', port: 0, threads: 1, task: 'arithmetic', token: TEST_TOKEN, writeDirs: [root] });
  }, 120_000);

  afterAll(async () => {
    await rollouts?.close();
    await trainer?.close();
    await rm(root, { recursive: true, force: true });
  });

  let runs = 0;
  async function trained(overrides: Partial<TrainConfigInput>, options: Partial<TrainRun> = {}) {
    const out = options.out ?? join(root, `run-${++runs}`);
    const config = tinyConfig({ game: 'grpo', steps: 2, problemsPerStep: 4, checkpointEvery: 1, rolloutServers: { dialect: 'vllm', servers: [rollouts.url], backoffMs: 20 }, ...overrides });
    await runTraining(config, { ...options, out });
    const lines = await jsonl<{ policies: { senior: { link_bytes?: number; grad_norm: number } } }>(join(out, 'metrics.jsonl'));
    return {
      out,
      metrics: await runMetrics(out),
      transcripts: await jsonl<unknown>(join(out, 'transcripts.jsonl')),
      linkBytes: lines.map((line) => line.policies.senior.link_bytes),
      learned: lines.some((line) => line.policies.senior.grad_norm > 0),
      file: (name: string) => join(out, 'checkpoint', 'policies', 'senior', name),
    };
  }

  it('should train to the very metrics, transcripts and checkpoint of the in-process learner, with under 1 MB a step on the link', async () => {
    const local = await trained({});
    const kept = await trained({ trainerServer: { url: trainer.url } });
    expect(local.learned).toBe(true);
    expect(kept.metrics).toEqual(local.metrics);
    expect(kept.transcripts).toEqual(local.transcripts);
    for (const file of ['model.safetensors', 'optimizer.safetensors']) expect(sameBytes(await readFile(kept.file(file)), await readFile(local.file(file)))).toBe(true);
    // The server wrote the version the rollout server sampled step 2 with; the model's 12 MB of weights never crossed the link.
    expect(await readdir(join(kept.out, 'served-weights', 'senior'))).toEqual(['v1']);
    expect(kept.linkBytes.every((bytes) => bytes !== undefined && bytes > 0 && bytes < 1e6)).toBe(true);
  }, 300_000);

  it('should resume a run stopped after its first step, the server reading the checkpoint, into the unbroken run', async () => {
    const config = { trainerServer: { url: trainer.url } };
    const unbroken = await trained(config);
    const out = join(root, 'resumed');
    await trained(config, { out, stopAfter: 1 });
    const resumed = await trained(config, { out, resume: true });
    expect(resumed.metrics).toEqual(unbroken.metrics);
    expect(resumed.linkBytes.every((bytes) => bytes !== undefined && bytes < 1e6)).toBe(true);
    for (const file of ['model.safetensors', 'optimizer.safetensors']) expect(sameBytes(await readFile(resumed.file(file)), await readFile(unbroken.file(file)))).toBe(true);
  }, 300_000);

  it('should sample each step while the one before it learns (rolloutsAhead 1), one version behind, but never across a checkpoint, and resume into the unbroken run', async () => {
    const config = { trainerServer: { url: trainer.url }, rolloutsAhead: 1, steps: 4, checkpointEvery: 2 };
    const unbroken = await trained(config);
    const versions = (run: typeof unbroken) => [...new Set((run.transcripts as { step: number; turns: { versions: number[] }[] }[]).map((t) => `${t.step}:${t.turns[0].versions[0]}`))];
    // Steps 2 and 4 were sampled while steps 1 and 3 learned; step 3 waited for the checkpoint of step 2.
    expect(versions(unbroken)).toEqual(['1:0', '2:0', '3:2', '4:2']);
    expect(unbroken.learned).toBe(true);
    const out = join(root, 'ahead-resumed');
    await trained(config, { out, stopAfter: 2 });
    const resumed = await trained(config, { out, resume: true });
    expect(resumed.metrics).toEqual(unbroken.metrics);
    expect(resumed.transcripts).toEqual(unbroken.transcripts);
  }, 300_000);

  it.skipIf(pythonMissing(['torch']) !== null && process.env.CI !== 'true')('should train a LoRA senior on the torch backend to the in-process learner, the adapter written by the worker for the rollout server', async () => {
    const torchTrainer = await startTrainerServer({ host: '127.0.0.1', port: 0, threads: 1, task: 'arithmetic', token: TEST_TOKEN, writeDirs: [root], engine: await TorchEngine.open({ python: PYTHON, threads: 1 }) });
    try {
      const adapter = { policies: { senior: { adapter: { r: 4 } } } };
      const local = await trained(adapter);
      const kept = await trained({ ...adapter, trainerServer: { url: torchTrainer.url } });
      expect(local.learned).toBe(true);
      expect(farApart(kept.metrics, local.metrics, 1e-4)).toEqual([]);
      expect(await relativeL2(local.file('adapter_model.safetensors'), kept.file('adapter_model.safetensors'))).toBeLessThan(1e-5);
      expect(await relativeL2(local.file('optimizer.safetensors'), kept.file('optimizer.safetensors'))).toBeLessThan(1e-5);
      expect(kept.linkBytes.every((bytes) => bytes !== undefined && bytes < 1e6)).toBe(true);
    } finally {
      await torchTrainer.close();
    }
  }, 300_000);
});
