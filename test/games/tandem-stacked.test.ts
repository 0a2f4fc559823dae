import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { TranscriptLine } from '../../engine/trainer/transcript-line.ts';
import { Decoder } from '../../native/runtime/decoder.ts';
import { jsonl, relativeGap, runTraining, tinyConfig } from '../support/training.ts';

/** Two steps of tandem whose senior is a rank-4 adapter over the shipped base and whose junior is that base, frozen. */
const config = () =>
  tinyConfig({ steps: 2, problemsPerStep: 2, groupSize: 2, maxNewTokens: 40, checkpointEvery: 1, policies: { senior: { init: 'default', adapter: { r: 4, initStdB: 0.02 } } } });
const adapterFile = (out: string, file = 'adapter_model.safetensors') => join(out, 'checkpoint', 'policies', 'senior', file);

describe('tandem with an adapter senior through the co-decoded stack (senior and base junior in one run per token)', () => {
  const dirs: string[] = [];
  afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));
  afterEach(() => vi.restoreAllMocks());
  /** Trains, and says whether a co-decoded stack was opened for the run's matches. */
  const train = async (...args: Parameters<typeof runTraining>) => {
    const create = vi.spyOn(Decoder, 'create');
    const run = await runTraining(...args);
    dirs.push(run.out);
    const coStacked = create.mock.calls.some(([, options]) => options.coDecoded === true);
    create.mockRestore();
    return { ...run, coStacked };
  };

  it('co-writes the same tokens with the same log-probabilities and takes the same steps as one decoder member per policy', async () => {
    const stacked = await train(config());
    const apart = await train(config(), { stackAdapters: false });
    expect(stacked.coStacked).toBe(true);
    expect(apart.coStacked).toBe(false);
    const [a, b] = [await jsonl<TranscriptLine>(join(stacked.out, 'transcripts.jsonl')), await jsonl<TranscriptLine>(join(apart.out, 'transcripts.jsonl'))];
    expect(a.length).toBe(b.length);
    let switched = 0;
    for (const [i, line] of a.entries()) {
      for (const [t, turn] of line.turns.entries()) {
        const other = b[i].turns[t];
        expect(turn.responseIds.length).toBeGreaterThan(0);
        expect(turn.responseIds).toEqual(other.responseIds);
        expect(turn.authors).toEqual(other.authors);
        if (new Set(turn.authors).size === 2) switched += 1;
        expect(turn.logprobs.length).toBe(turn.responseIds.length);
        for (const [k, logprob] of turn.logprobs.entries()) expect(logprob).toBeCloseTo(other.logprobs[k], 3);
      }
    }
    expect(switched).toBeGreaterThan(0);
    expect(await relativeGap(adapterFile(stacked.out), adapterFile(apart.out))).toBeLessThan(1e-3);
  });

  it('resumes exactly: 2 steps straight, or 1, stopped and resumed for 1, end with the same adapter, moments and transcripts', async () => {
    const straight = await train(config());
    const split = await train(config(), { stopAfter: 1 });
    const resumed = await train(config(), { out: split.out, resume: true });
    expect(resumed.coStacked).toBe(true);
    for (const file of ['adapter_model.safetensors', 'optimizer.safetensors']) {
      expect((await readFile(adapterFile(split.out, file))).equals(await readFile(adapterFile(straight.out, file))), file).toBe(true);
    }
    expect(await jsonl(join(split.out, 'transcripts.jsonl'))).toEqual(await jsonl(join(straight.out, 'transcripts.jsonl')));
  });
});
