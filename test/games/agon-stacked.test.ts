import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TranscriptLine } from '../../engine/trainer/transcript-line.ts';
import { jsonl, relativeGap, runTraining, tinyConfig } from '../support/training.ts';

/** Two steps of Agon (A and B as adapters on the shipped base), so each adapter drafts once and challenges once. */
const config = () => tinyConfig({ game: 'agon', steps: 2, problemsPerStep: 2, groupSize: 2, checkpointEvery: 1, knobs: { turnTokens: 40 } });
const adapterFile = (out: string, policy: string, file = 'adapter_model.safetensors') => join(out, 'checkpoint', 'policies', policy, file);

describe('Agon through the stacked decoder (A and B in one decoder over the shared base)', () => {
  const dirs: string[] = [];
  afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));
  const train = async (...args: Parameters<typeof runTraining>) => {
    const run = await runTraining(...args);
    dirs.push(run.out);
    return run;
  };

  it('plays the same matches and takes the same training steps as one decoder per adapter, to float tolerance', async () => {
    const stacked = await train(config());
    const apart = await train(config(), { stackAdapters: false });
    const [a, b] = [await jsonl<TranscriptLine>(join(stacked.out, 'transcripts.jsonl')), await jsonl<TranscriptLine>(join(apart.out, 'transcripts.jsonl'))];
    expect(a.length).toBe(b.length);
    for (const [i, line] of a.entries()) {
      for (const [t, turn] of line.turns.entries()) {
        const other = b[i].turns[t];
        expect(turn.responseIds.length).toBeGreaterThan(0);
        expect(turn.responseIds).toEqual(other.responseIds);
        expect(turn.logprobs.length).toBe(turn.responseIds.length);
        for (const [k, logprob] of turn.logprobs.entries()) expect(logprob).toBeCloseTo(other.logprobs[k], 3);
      }
    }
    for (const policy of ['A', 'B']) expect(await relativeGap(adapterFile(stacked.out, policy), adapterFile(apart.out, policy)), policy).toBeLessThan(1e-3);
  });

  it('resumes exactly: 2 steps straight, or 1, stopped and resumed for 1, end with the same adapters, moments and transcripts', async () => {
    const straight = await train(config());
    const split = await train(config(), { stopAfter: 1 });
    await runTraining(config(), { out: split.out, resume: true });
    for (const policy of ['A', 'B']) {
      for (const file of ['adapter_model.safetensors', 'optimizer.safetensors']) {
        expect((await readFile(adapterFile(split.out, policy, file))).equals(await readFile(adapterFile(straight.out, policy, file))), `${policy} ${file}`).toBe(true);
      }
    }
    expect(await jsonl(join(split.out, 'transcripts.jsonl'))).toEqual(await jsonl(join(straight.out, 'transcripts.jsonl')));
  });
});
