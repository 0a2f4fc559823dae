import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { cloneWeights } from '../../../native/model/weights.ts';
import { Decoder } from '../../../native/runtime/decoder.ts';
import { generate } from '../../../native/runtime/generate.ts';
import { Learner, type LearnBatch } from '../../../native/train/learner.ts';
import { EngineClient } from '../../../native/worker/engine-client.ts';
import { randomModel } from '../../support/models.ts';

const { config, weights, policy } = randomModel();
const settings = { objective: 'sft' as const, optimizer: { lr: 1e-2 }, threads: 1 };

function sftBatch(rows: number, cols: number, seed: number): LearnBatch {
  const rng = new Rng(seed);
  const ids = Array.from({ length: rows * (cols + 1) }, () => rng.int(config.vocabSize));
  const inputIds = new Int32Array(rows * cols);
  const targets = new Int32Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let t = 0; t < cols; t++) {
      inputIds[r * cols + t] = ids[r * (cols + 1) + t];
      targets[r * cols + t] = ids[r * (cols + 1) + t + 1];
    }
  }
  return { rows, cols, inputIds, targets, lossMask: new Float32Array(rows * cols).fill(1) };
}

describe('EngineClient learners', () => {
  let client: EngineClient;
  let local: Learner;
  beforeAll(async () => {
    client = await EngineClient.start({ threads: 1 });
    local = await Learner.create(config, cloneWeights(weights), settings);
  });
  afterAll(async () => {
    await local.release();
    await client.close();
  });

  describe('having a learner in the worker', () => {
    it('should take the same optimizer steps, score and weights as a learner in-process', async () => {
      const learner = await client.createLearner(config, weights, settings);
      for (const seed of [1, 2]) {
        const batch = sftBatch(2, 12, seed);
        expect(await client.learnerStep(learner, batch)).toEqual(await local.step(batch));
      }
      const scored = sftBatch(2, 12, 3);
      expect(await client.learnerScore(learner, scored)).toEqual(await local.score(scored));
      expect(await client.learnerWeights(learner)).toEqual(local.weights);
      await client.release(learner);
    });
  });

  describe('having a decoder synced from a learner', () => {
    it('should decode with the learner weights, which never leave the worker', async () => {
      const learner = await client.createLearner(config, weights, settings);
      const twin = await Learner.create(config, cloneWeights(weights), settings);
      const decoder = await client.createDecoder([policy], { batch: 2, maxLen: 32 });
      const batch = sftBatch(2, 12, 4);
      await client.learnerStep(learner, batch);
      await twin.step(batch);
      await client.syncPolicy(decoder, 0, learner);

      const prompts = [[1, 2, 3], [4]];
      const options = { maxNewTokens: 12, sampling: { temperature: 1, topK: 0, topP: 1 }, seed: 8 };
      const synced = await client.generate(decoder, prompts, options);
      const trained = await Decoder.create([{ ...policy, weights: twin.weights }], { batch: 2, maxLen: 32, threads: 1 });
      const untrained = await Decoder.create([policy], { batch: 2, maxLen: 32, threads: 1 });
      expect(synced).toEqual(await generate(trained, prompts, options));
      expect(synced).not.toEqual(await generate(untrained, prompts, options));
      await Promise.all([trained.release(), untrained.release(), twin.release(), client.release(decoder), client.release(learner)]);
    });
  });
});
