import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { Rng } from '../../../core/rng.ts';
import { checkpointLayout, CONFIG_FILE } from '../../../native/io/checkpoint.ts';
import { readSafetensors, type StoredTensor } from '../../../native/io/safetensors.ts';
import { fingerprint } from '../../../native/model/fingerprint.ts';
import { TorchLearner } from '../../../native/torch/torch-learner.ts';
import { TorchWorker } from '../../../native/torch/torch-worker.ts';
import { Learner, type LearnBatch } from '../../../native/train/learner.ts';
import { parseLearnerConfig } from '../../../native/train/learner-config.ts';
import { resolveModelDir } from '../../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../../plugins/policies/load-policy.ts';
import { TorchEngine } from '../../../server/trainer-server/learner-engines.ts';
import { describeNeeding, pythonMissing, PYTHON } from '../../support/optional.ts';

const BASE = resolveModelDir('default', 'arithmetic');

/** A right-padded batch over the base's vocabulary with a mask of trained positions, drawn from `seed`. */
function batchOf(seed: number, vocab: number, poison?: number): LearnBatch {
  const rng = new Rng(seed);
  const rows = 3;
  const cols = 20;
  const n = rows * cols;
  const advantages = Float64Array.from({ length: rows }, () => rng.normal());
  if (poison !== undefined) advantages[0] = poison;
  return {
    rows,
    cols,
    inputIds: Int32Array.from({ length: n }, () => Math.floor(rng.next() * vocab)),
    targets: Int32Array.from({ length: n }, () => Math.floor(rng.next() * vocab)),
    lossMask: Float64Array.from({ length: n }, (_, i) => (i % cols >= 4 && i % cols < 16 ? 1 : 0)),
    advantages,
    oldLogprobs: Float64Array.from({ length: n }, () => -5 + rng.normal() * 0.3),
  };
}

/** An interpreter (a shell script) that runs the system Python with `setup` in front of its arguments. */
async function interpreter(dir: string, name: string, setup: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `#!/bin/sh\n${setup} "$@"\n`);
  await chmod(path, 0o755);
  return path;
}

describe('starting the torch worker', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ludus-torch-start-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const refusal = (python: string) => TorchWorker.start({ python, threads: 1 }).then(
    (worker) => worker.close().then(() => undefined),
    (error: unknown) => error,
  );

  it('should refuse an interpreter that does not exist with TORCH_UNAVAILABLE saying how to install one', async () => {
    const error = await refusal(join(dir, 'no-python'));
    expect(LudusError.is(error, 'TORCH_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toMatch(/apt-get install python3-torch/);
  });

  it('should refuse a Python without torch with TORCH_UNAVAILABLE saying how to install it', async () => {
    // -S: no site packages, so no torch.
    const error = await refusal(await interpreter(dir, 'bare-python', `exec ${PYTHON} -S`));
    expect(LudusError.is(error, 'TORCH_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toMatch(/torch is not importable .*apt-get install python3-torch/);
  });

  it('should refuse a torch older than 1.13, naming its version', async () => {
    const fake = join(dir, 'old-torch');
    await mkdir(join(fake, 'torch'), { recursive: true });
    await writeFile(join(fake, 'torch', '__init__.py'), '__version__ = "1.12.1+cpu"\n');
    const error = await refusal(await interpreter(dir, 'old-python', `PYTHONPATH=${fake} exec ${PYTHON}`));
    expect(LudusError.is(error, 'TORCH_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toMatch(/torch 1\.12\.1\+cpu .* older than 1\.13/);
  });
});

describeNeeding('torch (Debian python3-torch)', pythonMissing(['torch']), 'the torch worker against the in-process learner', () => {
  let worker: TorchWorker;
  let dir: string;
  beforeAll(async () => {
    worker = await TorchWorker.start({ python: PYTHON, threads: 1 });
    dir = await mkdtemp(join(tmpdir(), 'ludus-torch-learner-'));
  }, 60_000);
  afterAll(async () => {
    await worker?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('should compute the in-process learner\'s loss, sums, gradient norm and update on one batch (full fine-tuning)', async () => {
    const learner = parseLearnerConfig({ optimizer: { lr: 1e-3 }, threads: 1, klBeta: 0.05 });
    const torch = await TorchLearner.create(worker, { layout: await checkpointLayout(BASE), learner });
    const { policy } = await loadPolicy(BASE);
    const ort = await Learner.create(policy.config, policy.weights, learner);
    try {
      const batch = { ...batchOf(1, policy.config.vocabSize), refLogprobs: Float64Array.from({ length: 60 }, (_, i) => -5 + 0.01 * i) };
      const [a, b] = [await ort.forwardBackward(batch), await torch.forwardBackward(batch)];
      for (const key of ['loss', 'kl', 'entropy'] as const) expect(Math.abs(b[key] - a[key]) / Math.max(1, Math.abs(a[key]))).toBeLessThan(1e-5);
      expect([b.tokens, b.clipped, b.microBatches]).toEqual([a.tokens, a.clipped, a.microBatches]);
      const [u, v] = [await ort.optimStep(), await torch.optimStep()];
      expect(v.step).toBe(u.step);
      expect(Math.abs(v.gradNorm - u.gradNorm) / u.gradNorm).toBeLessThan(1e-5);
      const trained = await torch.trainedWeights();
      let gap = 0;
      let norm = 0;
      for (const [name, t] of ort.trainable) t.data.forEach((x, i) => ((gap += (x - trained.get(name)!.data[i]) ** 2), (norm += x * x)));
      expect(Math.sqrt(gap / norm)).toBeLessThan(1e-5);
    } finally {
      await torch.release();
      await ort.release();
    }
  }, 60_000);

  it('should refuse an update of non-finite gradients with NON_FINITE, leaving weights and moments as they were', async () => {
    const torch = await TorchLearner.create(worker, { layout: await checkpointLayout(BASE), learner: parseLearnerConfig({ threads: 1 }) });
    try {
      const before = await torch.fingerprint();
      await torch.forwardBackward(batchOf(2, 357, Number.NaN));
      const error = await torch.optimStep().catch((e: unknown) => e);
      expect(LudusError.is(error, 'NON_FINITE')).toBe(true);
      expect((error as Error).message).toMatch(/at optimizer step 1; update skipped/);
      expect(await torch.fingerprint()).toBe(before);
      expect(torch.step).toBe(0);
      // The next update starts from fresh gradients.
      await torch.forwardBackward(batchOf(3, 357));
      expect((await torch.optimStep()).step).toBe(1);
    } finally {
      await torch.release();
    }
  }, 60_000);

  it('should write its tensors and moments in the layout ludus reads, under the fingerprint of what it holds', async () => {
    const torch = await TorchLearner.create(worker, { layout: await checkpointLayout(BASE), learner: parseLearnerConfig({ threads: 1 }), lora: { config: { r: 2, alpha: 4, targetModules: ['q_proj'], initStdB: 0.01 }, seed: 5 } });
    try {
      const path = join(dir, 'adapter.safetensors');
      const names = [...torch.trainableShapes.keys()];
      await torch.writeTensors(path, new Map<string, StoredTensor>(names.flatMap((name): [string, StoredTensor][] => [[`p.${name}`, { kind: 'param', name }], [`m.${name}`, { kind: 'm', name, flat: true }]])), { metadata: { step: '0' } });
      const { tensors, metadata } = await readSafetensors(path);
      expect(metadata).toEqual({ step: '0' });
      const params = new Map(names.map((name) => [name, tensors.get(`p.${name}`)!]));
      expect(fingerprint(params)).toBe(await torch.fingerprint());
      expect(tensors.get(`m.${names[0]}`)!.dims).toEqual([params.get(names[0])!.data.length]);
    } finally {
      await torch.release();
    }
  }, 60_000);

  it('should refuse FSDP where this torch cannot import it, naming the version (and train with it where it can)', async () => {
    const fsdpMissing = pythonMissing(['torch.distributed.fsdp']);
    const opened = await TorchWorker.start({ python: PYTHON, threads: 1, strategy: 'fsdp' }).catch((error: unknown) => error);
    if (fsdpMissing !== null) {
      expect(LudusError.is(opened, 'TORCH_UNAVAILABLE')).toBe(true);
      expect((opened as Error).message).toMatch(/FSDP cannot be imported in torch \d/);
      return;
    }
    const fsdp = opened as TorchWorker;
    try {
      const torch = await TorchLearner.create(fsdp, { layout: await checkpointLayout(BASE), learner: parseLearnerConfig({ threads: 1 }) });
      await torch.forwardBackward(batchOf(4, 357));
      expect((await torch.optimStep()).step).toBe(1);
      expect((await torch.optimizerState()).step).toBe(1);
    } finally {
      await fsdp.close();
    }
  }, 120_000);

  it('should refuse a base of an architecture it cannot build at create_model, naming it', async () => {
    const engine = await TorchEngine.open({ python: PYTHON, threads: 1 });
    const base = join(dir, 'gpt2');
    await cp(BASE, base, { recursive: true });
    const config = JSON.parse(await readFile(join(base, CONFIG_FILE), 'utf8')) as Record<string, unknown>;
    await writeFile(join(base, CONFIG_FILE), JSON.stringify({ ...config, model_type: 'gpt2' }));
    try {
      const error = await engine.create({ dir: base, learner: parseLearnerConfig({}) }).catch((e: unknown) => e);
      expect(LudusError.is(error, 'MODEL_TYPE_UNSUPPORTED')).toBe(true);
      expect((error as Error).message).toMatch(/model_type "gpt2" is not supported/);
    } finally {
      await engine.close();
    }
  }, 60_000);
});
