import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrainConfigInput } from '../../../engine/trainer/train-config.ts';
import { LUDUS_BIN } from '../../support/cli.ts';
import { useTestToken } from '../../support/server-token.ts';
import { jsonl, runTraining, tinyConfig } from '../../support/training.ts';

useTestToken();

interface Transcript {
  step: number;
  matchId: string;
  seeds: unknown;
  turns: { promptIds: number[]; responseIds: number[]; authors?: number[]; versions: number[] }[];
}

/** Starts `ludus serve-model default` in a child process on a free loopback port; resolves with its URL. */
function serveModel(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [LUDUS_BIN, 'serve-model', 'default', '--task', 'arithmetic', '--port', '0', '--rows', '4', '--threads', '1', '--allow-dir', tmpdir()], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`serve-model exited with ${code}: ${stderr}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ url: (JSON.parse(line) as { url: string }).url, child }));
  });
}

/** A short run on the shipped base, in-process or with rollouts from the two servers; its metrics (less timings) and transcripts. */
async function trained(overrides: Partial<TrainConfigInput>, servers?: readonly string[], onStep?: (line: { step: number }) => void) {
  const config = tinyConfig({ steps: 2, maxNewTokens: 32, ...overrides, ...(servers ? { rolloutServers: { dialect: 'vllm', servers: [...servers], backoffMs: 20 } } : {}) });
  const { out } = await runTraining(config, onStep ? { onStep } : {});
  const metrics = (await jsonl<Record<string, unknown>>(join(out, 'metrics.jsonl'))).map(({ seconds: _, ...line }) => line);
  const transcripts = await jsonl<Transcript>(join(out, 'transcripts.jsonl'));
  // What the run pushed to the servers: the trained policy's last version, written where the servers read it.
  const pushed = await readdir(join(out, 'served-weights'), { recursive: true }).catch(() => []);
  await rm(out, { recursive: true, force: true });
  return { metrics, transcripts, pushed };
}

/** Two serve-model processes for the enclosing describe, started before its tests and stopped after. */
function twoServeModels(): () => { url: string; child: ChildProcess }[] {
  let servers: { url: string; child: ChildProcess }[] = [];
  beforeAll(async () => {
    servers = await Promise.all([serveModel(), serveModel()]);
  }, 120_000);
  afterAll(() => {
    for (const { child } of servers) child.kill('SIGTERM');
  });
  return () => servers;
}

describe('training with rollouts from two `ludus serve-model` processes on loopback, the learner in-process', () => {
  const servers = twoServeModels();

  describe('having grpo (solo rows, each one request seeded with its own seed)', () => {
    it('should record the very metrics and transcripts of the in-process run with the same seed', async () => {
      const local = await trained({ game: 'grpo' });
      const remote = await trained({ game: 'grpo' }, servers().map((s) => s.url));
      expect(local.pushed).toEqual([]);
      expect(remote.pushed).toContain(join('senior', 'v1'));
      expect(new Set(remote.transcripts.filter((t) => t.step === 2).map((t) => t.turns[0].versions[0]))).toEqual(new Set([1]));
      expect(remote.transcripts).toEqual(local.transcripts);
      expect(remote.metrics).toEqual(local.metrics);
    }, 300_000);
  });

  describe('having tandem (co-written by span-and-cut, the senior pushed after each step)', () => {
    it('should play the same problems with the same seeds, every token by the author its schedule names, sampled by the version then trained', async () => {
      const local = await trained({ game: 'tandem' });
      const remote = await trained({ game: 'tandem' }, servers().map((s) => s.url));
      // Spans are seeded by (row seed, position) where the in-process decoder draws one stream per row: the tokens differ.
      const played = (run: typeof local) => run.transcripts.map((t) => ({ step: t.step, matchId: t.matchId, seeds: t.seeds, prompt: t.turns[0].promptIds }));
      expect(played(remote)).toEqual(played(local));
      expect(remote.transcripts.map((t) => t.turns[0].versions)).toEqual(remote.transcripts.map((t) => [t.step - 1, 0]));
      expect(new Set(remote.transcripts.flatMap((t) => t.turns[0].authors))).toEqual(new Set([0, 1]));
      expect(remote.metrics.map((line) => Object.keys(line).sort())).toEqual(local.metrics.map((line) => Object.keys(line).sort()));
      expect(remote.metrics.map((line) => line.step)).toEqual([1, 2]);
      expect(remote.pushed).toContain(join('senior', 'v1'));
    }, 300_000);
  });

  describe('having grpo with a LoRA adapter on the trained policy (pushed as a PEFT adapter over the servers\' base)', () => {
    it('should record the very metrics and transcripts of the in-process run with the same seed', async () => {
      const adapter = { policies: { senior: { adapter: { r: 4 } } } };
      const local = await trained({ game: 'grpo', ...adapter });
      const remote = await trained({ game: 'grpo', ...adapter }, servers().map((s) => s.url));
      expect(remote.pushed).toContain(join('senior', 'v1', 'adapter_config.json'));
      expect(remote.transcripts).toEqual(local.transcripts);
      expect(remote.metrics).toEqual(local.metrics);
    }, 300_000);
  });
});

describe('training over two `ludus serve-model` processes, one of them killed in the middle of the run', () => {
  const servers = twoServeModels();

  it('should finish on the survivor and record the very metrics and transcripts of the undisturbed run', async () => {
    const undisturbed = await trained({ game: 'grpo', steps: 3 });
    const survived = await trained({ game: 'grpo', steps: 3 }, servers().map((s) => s.url), (line) => {
      // Killed as step 2 begins: its weight push and all its rows find the server gone.
      if (line.step === 1) servers()[1].child.kill('SIGKILL');
    });
    expect(servers()[1].child.signalCode).toBe('SIGKILL');
    expect(survived.metrics.map((line) => line.step)).toEqual([1, 2, 3]);
    expect(survived.transcripts).toEqual(undisturbed.transcripts);
    expect(survived.metrics).toEqual(undisturbed.metrics);
  }, 300_000);
});

describe('tandem over two `ludus serve-model` processes, one of them killed in the middle of the run', () => {
  const servers = twoServeModels();

  it('should finish on the survivor and record the very metrics and transcripts of the undisturbed run over both, partners scored on the survivor', async () => {
    const undisturbed = await trained({ game: 'tandem' }, servers().map((s) => s.url));
    const survived = await trained({ game: 'tandem' }, servers().map((s) => s.url), (line) => {
      if (line.step === 1) servers()[0].child.kill('SIGKILL');
    });
    expect(servers()[0].child.signalCode).toBe('SIGKILL');
    expect(survived.transcripts).toEqual(undisturbed.transcripts);
    expect(survived.metrics).toEqual(undisturbed.metrics);
  }, 300_000);
});
