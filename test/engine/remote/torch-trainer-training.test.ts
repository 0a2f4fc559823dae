import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import type { TrainConfigInput } from '../../../engine/trainer/train-config.ts';
import { TorchEngine } from '../../../server/trainer-server/learner-engines.ts';
import { startTrainerServer, type TrainerServer } from '../../../server/trainer-server/trainer-server.ts';
import { farApart, relativeL2 } from '../../support/closeness.ts';
import { describeNeeding, pythonMissing, PYTHON } from '../../support/optional.ts';
import { TEST_TOKEN, useTestToken } from '../../support/server-token.ts';
import { runMetrics, runTraining, tinyConfig } from '../../support/training.ts';
import type { TrainRun } from '../../../engine/trainer/trainer.ts';

useTestToken();

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ludus-torch-run-'));
  dirs.push(dir);
  return dir;
}

type Run = Awaited<ReturnType<typeof recorded>>;

async function recorded(out: string) {
  const metrics = await runMetrics(out);
  return { out, metrics, file: (name: string) => join(out, 'checkpoint', 'policies', name) };
}

/** 2 steps (checkpointed at each; 4 problems a step, so both steps have gradients) into `out` or a fresh directory. */
async function trained(overrides: Partial<TrainConfigInput>, options: Partial<TrainRun> = {}): Promise<Run> {
  const out = options.out ?? (await scratch());
  await runTraining(tinyConfig({ steps: 2, problemsPerStep: 4, checkpointEvery: 1, ...overrides }), { ...options, out });
  return recorded(out);
}

/** The metrics agree within 1e-4; the trained weights and AdamW moments within 1e-5 relative L2; something was learned. */
async function expectSameRun(run: Run, reference: Run, weightsFile: string): Promise<void> {
  expect(run.metrics.length).toBe(2);
  expect(reference.metrics.some((line) => (line as { policies: Record<string, { grad_norm: number }> }).policies.senior.grad_norm > 0)).toBe(true);
  expect(farApart(run.metrics, reference.metrics, 1e-4)).toEqual([]);
  expect(await relativeL2(reference.file(`senior/${weightsFile}`), run.file(`senior/${weightsFile}`))).toBeLessThan(1e-5);
  expect(await relativeL2(reference.file('senior/optimizer.safetensors'), run.file('senior/optimizer.safetensors'))).toBeLessThan(1e-5);
}

const server = (processes = 1): Promise<TrainerServer> =>
  TorchEngine.open({ python: PYTHON, threads: 1, processes }).then((engine) => startTrainerServer({ host: '127.0.0.1', port: 0, threads: 1, task: 'arithmetic', token: TEST_TOKEN, engine }));

const LORA = { policies: { senior: { adapter: { r: 4 } } } };

describeNeeding('torch (Debian python3-torch)', pythonMissing(['torch']), 'training through `ludus serve-trainer --backend torch`', () => {
  let one: TrainerServer;
  /** Runs shared by the tests below, each made once. */
  const runs = new Map<string, Promise<Run>>();
  const once = (key: string, make: () => Promise<Run>): Promise<Run> => runs.get(key) ?? (runs.set(key, make()), runs.get(key)!);
  const torchTandem = () => once('torch tandem', () => trained({ game: 'tandem', trainerServer: { url: one.url } }));
  const torchLora = () => once('torch lora', () => trained({ game: 'grpo', ...LORA, trainerServer: { url: one.url } }));

  beforeAll(async () => {
    one = await server();
  }, 120_000);

  afterAll(() => one?.close());

  it('should train tandem with full fine-tuning to the in-process run: metrics within 1e-4, weights and moments within 1e-5', async () => {
    await expectSameRun(await torchTandem(), await trained({ game: 'tandem' }), 'model.safetensors');
  }, 300_000);

  it('should train grpo with a LoRA senior to the in-process run', async () => {
    await expectSameRun(await torchLora(), await trained({ game: 'grpo', ...LORA }), 'adapter_model.safetensors');
  }, 300_000);

  it('should resume a run stopped after its first step into the unbroken run', async () => {
    const config = { game: 'grpo' as const, ...LORA, trainerServer: { url: one.url } };
    const out = await scratch();
    await trained(config, { out, stopAfter: 1 });
    await expectSameRun(await trained(config, { out, resume: true }), await torchLora(), 'adapter_model.safetensors');
  }, 300_000);

  it('should train under torchrun with two processes (DDP over gloo) to what one process trains', async () => {
    const two = await server(2);
    try {
      expect(two.engine.describe()).toMatchObject({ world: 2, strategy: 'ddp' });
      await expectSameRun(await trained({ game: 'tandem', trainerServer: { url: two.url } }), await torchTandem(), 'model.safetensors');
    } finally {
      await two.close();
    }
  }, 300_000);

  it('should fail a step whose worker is killed (kill -9) with REMOTE_UNAVAILABLE, keep nothing of it, and resume from the checkpoint on a new worker', async () => {
    const killed = await server();
    try {
      const config = { game: 'grpo' as const, ...LORA, trainerServer: { url: killed.url, retries: 1, backoffMs: 10 } };
      const out = await scratch();
      const pid = Number(killed.engine.describe().pid);
      const failure = await trained(config, { out, onStep: (line) => line.step === 1 && process.kill(pid, 'SIGKILL') }).catch((error: unknown) => error);
      expect(LudusError.is(failure, 'REMOTE_UNAVAILABLE')).toBe(true);
      expect((await recorded(out)).metrics.map((line) => (line as { step: number }).step)).toEqual([1]);
      const resumed = await trained(config, { out, resume: true });
      expect(Number(killed.engine.describe().pid)).not.toBe(pid);
      await expectSameRun(resumed, await torchLora(), 'adapter_model.safetensors');
    } finally {
      await killed.close();
    }
  }, 300_000);
});
