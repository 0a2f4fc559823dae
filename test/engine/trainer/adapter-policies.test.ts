import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MetricsLine } from '../../../engine/trainer/metrics-line.ts';
import type { TrainConfigInput } from '../../../engine/trainer/train-config.ts';
import { readOptimizer } from '../../../engine/trainer/training-checkpoint.ts';
import { loadAdapter } from '../../../native/io/adapter.ts';
import { loadCheckpoint } from '../../../native/io/checkpoint.ts';
import { adapterShapes, withAdapter } from '../../../native/model/lora.ts';
import { parseLoraConfig } from '../../../native/model/lora-config.ts';
import { resolveModelDir } from '../../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../../plugins/policies/load-policy.ts';
import { jsonl, runTraining, tinyConfig } from '../../support/training.ts';

const RELAY = new URL('../../fixtures/plugins/relay.ts', import.meta.url).pathname;

/** The relay game with alice and bob as two rank-4 adapters on the one shipped base. */
const relay = (overrides: Partial<TrainConfigInput> = {}) =>
  tinyConfig({
    game: 'relay',
    plugins: [RELAY],
    problemsPerStep: 2,
    groupSize: 2,
    steps: 3,
    checkpointEvery: 1,
    schedule: { lr: 1e-3 },
    policies: { alice: { adapter: { r: 4 } }, bob: { adapter: { r: 4 } } },
    ...overrides,
  });

const policyFile = (out: string, policy: string, file: string) => readFile(join(out, 'checkpoint', 'policies', policy, file));

describe('the trainer with policies that are LoRA adapters over one frozen base', () => {
  // One 4-step run serves both the checks of what was trained and saved and the resume comparison (it was a 3-step run of its own).
  const config = relay({ steps: 4, checkpointEvery: 2 });
  let straight: { out: string };
  beforeAll(async () => {
    straight = await runTraining(config);
  });

  it('trains both adapters alone, with adapter-sized optimizer state, saves them in PEFT\'s layout over the base, and loads them back as policies', async () => {
    const { out } = straight;
    const metrics = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
    expect(metrics.map((line) => line.seats.opener)).toEqual(['alice', 'bob', 'alice', 'bob']);
    const baseDir = resolveModelDir('default');
    const base = await loadCheckpoint(baseDir);
    const config = withAdapter(base.config, parseLoraConfig({ r: 4 }));
    const names = [...adapterShapes(config).keys()].sort();
    for (const policy of ['alice', 'bob']) {
      const dir = join(out, 'checkpoint', 'policies', policy);
      expect((await readdir(dir)).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors', 'optimizer.safetensors', 'tokenizer.json']);
      const optimizer = await readOptimizer(join(dir, 'optimizer.safetensors'));
      expect(optimizer.step).toBe(4);
      expect(Object.keys(optimizer.m).sort()).toEqual(names);
      const adapter = await loadAdapter(dir, base.config, { baseModel: baseDir });
      expect(adapter.lora.r).toBe(4);
      // Trained: B has left PEFT's zero start.
      expect(adapter.weights.get('model.layers.0.self_attn.q_proj.lora_B.weight')!.data.some((x) => x !== 0)).toBe(true);
      const loaded = await loadPolicy(dir);
      expect(loaded.policy.config.lora?.r).toBe(4);
      expect(loaded.tokenizer).not.toBeNull();
    }
    // Different initialization seeds: the two adapters differ.
    expect((await policyFile(out, 'alice', 'adapter_model.safetensors')).equals(await policyFile(out, 'bob', 'adapter_model.safetensors'))).toBe(false);
  });

  it('resumes exactly: 4 steps straight, or 2, stopped and resumed for 2, end with the same adapters, moments, metrics and transcripts', async () => {
    const split = await runTraining(config, { stopAfter: 2 });
    await runTraining(config, { out: split.out, resume: true });
    for (const policy of ['alice', 'bob']) {
      for (const file of ['adapter_model.safetensors', 'optimizer.safetensors']) expect((await policyFile(split.out, policy, file)).equals(await policyFile(straight.out, policy, file)), `${policy} ${file}`).toBe(true);
    }
    const withoutTime = (lines: MetricsLine[]) => lines.map(({ seconds: _seconds, ...rest }) => rest);
    expect(withoutTime(await jsonl(join(split.out, 'metrics.jsonl')))).toEqual(withoutTime(await jsonl(join(straight.out, 'metrics.jsonl'))));
    expect(await jsonl(join(split.out, 'transcripts.jsonl'))).toEqual(await jsonl(join(straight.out, 'transcripts.jsonl')));
  });
});
