import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import type { TrainConfigInput } from '../../../engine/trainer/train-config.ts';
import { LUDUS_BIN } from '../../support/cli.ts';
import { useTestToken } from '../../support/server-token.ts';
import { jsonl, runMetrics, runTraining, tinyConfig } from '../../support/training.ts';

useTestToken();

/** `ludus serve-trainer` in a child process on loopback (a free port, or the one given); resolves with its URL. */
function serveTrainer(port = 0, samplerDir?: string): Promise<{ url: string; child: ChildProcess }> {
  const args = [LUDUS_BIN, 'serve-trainer', '--task', 'arithmetic', '--port', String(port), '--threads', '1', ...(samplerDir ? ['--sampler-dir', samplerDir] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`serve-trainer exited with ${code}: ${stderr}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ url: (JSON.parse(line) as { url: string }).url, child }));
  });
}

const stopped = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

const outs: string[] = [];
afterEach(async () => {
  for (const out of outs.splice(0)) await rm(out, { recursive: true, force: true });
});

/** What a run recorded: its metrics less timings, its transcripts, and its checkpoint's bytes (weights, moments, state). */
async function recorded(out: string) {
  const metrics = await runMetrics(out);
  const transcripts = await jsonl<unknown>(join(out, 'transcripts.jsonl'));
  const checkpoint = async (file: string) => (await readFile(join(out, 'checkpoint', file))).toString('base64');
  return { metrics, transcripts, checkpoint };
}

/** A fresh directory removed after the test, whatever happens in it. */
async function scratch(prefix = 'ludus-train-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  outs.push(dir);
  return dir;
}

async function trained(overrides: Partial<TrainConfigInput>, options: Parameters<typeof runTraining>[1] = {}) {
  const out = await scratch();
  await runTraining(tinyConfig({ steps: 2, maxNewTokens: 32, checkpointEvery: 1, ...overrides }), { ...options, out });
  return { out, ...(await recorded(out)) };
}

describe('training through the trainer API of `ludus serve-trainer` (a child process on loopback), rollouts in-process', () => {
  let server: { url: string; child: ChildProcess };

  beforeAll(async () => {
    server = await serveTrainer();
  }, 120_000);

  afterAll(async () => {
    server.child.kill('SIGTERM');
    await stopped(server.child);
  });

  it('should record, for tandem with the same seed, the very metrics, transcripts and checkpointed weights and moments of the in-process learner', async () => {
    const local = await trained({ game: 'tandem' });
    const remote = await trained({ game: 'tandem', trainerServer: { url: server.url } });
    expect(remote.metrics.length).toBe(2);
    expect(remote.metrics).toEqual(local.metrics);
    // The weights come back at every step (rollouts here): the link carries them, more than the model's 12 MB of float32.
    const bytes = (await jsonl<{ policies: { senior: { link_bytes?: number } } }>(join(remote.out, 'metrics.jsonl'))).map((line) => line.policies.senior.link_bytes ?? 0);
    expect(Math.min(...bytes)).toBeGreaterThan(12e6);
    expect(remote.transcripts).toEqual(local.transcripts);
    for (const file of ['policies/senior/model.safetensors', 'policies/senior/optimizer.safetensors']) expect(await remote.checkpoint(file)).toEqual(await local.checkpoint(file));
  }, 300_000);

  it('should train a LoRA adapter over the server\'s base (same seed) to the very metrics and transcripts of the in-process learner', async () => {
    const adapter = { policies: { senior: { adapter: { r: 4 } } } };
    const local = await trained({ game: 'grpo', ...adapter });
    const remote = await trained({ game: 'grpo', ...adapter, trainerServer: { url: server.url } });
    expect(remote.metrics).toEqual(local.metrics);
    expect(remote.transcripts).toEqual(local.transcripts);
  }, 300_000);

  it('should resume a run stopped after one step (weights and moments sent back through load_state) into the unbroken run', async () => {
    const config = { game: 'grpo' as const, trainerServer: { url: server.url } };
    const unbroken = await trained(config);
    const out = await scratch();
    await runTraining(tinyConfig({ steps: 2, maxNewTokens: 32, checkpointEvery: 1, ...config }), { out, stopAfter: 1 });
    await runTraining(tinyConfig({ steps: 2, maxNewTokens: 32, checkpointEvery: 1, ...config }), { out, resume: true });
    const resumed = await recorded(out);
    expect(resumed.metrics).toEqual(unbroken.metrics);
    expect(await resumed.checkpoint('policies/senior/model.safetensors')).toEqual(await unbroken.checkpoint('policies/senior/model.safetensors'));
  }, 300_000);
});

describe('a trainer server that goes away mid-run', () => {
  it('should fail the step with REMOTE_UNAVAILABLE, record nothing of it, and resume from the last checkpoint on a server restarted at the same address', async () => {
    const base = { game: 'grpo' as const, steps: 3, maxNewTokens: 32, checkpointEvery: 1 };
    // A killed server removes nothing: its saves for samplers go where the test cleans up.
    const samplerDir = await scratch('ludus-trainer-');
    const first = await serveTrainer(0, samplerDir);
    // The default per-request timeout (120 s): a killed server resets its connections and refuses new ones at once,
    // so the failure needs no short timeout, and a slow step on a loaded machine must not pass for a dead server.
    const config = tinyConfig({ ...base, trainerServer: { url: first.url, retries: 1, backoffMs: 10 } });
    const out = await scratch();
    const failure = await runTraining(config, {
      out,
      onStep: (line) => {
        if (line.step === 1) first.child.kill('SIGKILL');
      },
    }).catch((error: unknown) => error);
    await stopped(first.child);
    expect(LudusError.is(failure, 'REMOTE_UNAVAILABLE')).toBe(true);
    const broken = await recorded(out);
    expect(broken.metrics.map((line) => line.step)).toEqual([1]);
    expect(new Set(broken.transcripts.map((t) => (t as { step: number }).step))).toEqual(new Set([1]));

    const second = await serveTrainer(Number(new URL(first.url).port), samplerDir);
    try {
      await runTraining(config, { out, resume: true });
    } finally {
      second.child.kill('SIGTERM');
      await stopped(second.child);
    }
    // The in-process learner's unbroken run (which the trainer API's equals, as shown above).
    const unbroken = await trained(base);
    expect((await recorded(out)).metrics).toEqual(unbroken.metrics);
  }, 300_000);
});
