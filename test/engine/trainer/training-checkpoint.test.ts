import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { saveCheckpoint } from '../../../native/io/checkpoint.ts';
import { loadTrainingCheckpoint, saveTrainingCheckpoint } from '../../../engine/trainer/training-checkpoint.ts';
import { randomModel } from '../../support/models.ts';

describe('training checkpoints', () => {
  describe('having weights, AdamW moments, trainer state and a tokenizer', () => {
    it('should read back exactly what was written', async () => {
      const dir = join(await mkdtemp(join(tmpdir(), 'ludus-ckpt-')), 'step-3');
      const { config, weights } = randomModel();
      const names = [...weights.keys()].slice(0, 3);
      const optimizer = {
        step: 3,
        m: Object.fromEntries(names.map((n, i) => [n, Float32Array.from(weights.get(n)!.data, (x) => x * (i + 1))])),
        v: Object.fromEntries(names.map((n) => [n, Float32Array.from(weights.get(n)!.data, (x) => x * x)])),
      };
      const state = { step: 3, rng: { s: [1, 2, 3, 4] }, cursor: 96 };
      await saveTrainingCheckpoint(dir, { config, weights, optimizer, state, tokenizerJson: { model: { type: 'WordLevel' } } });
      const back = await loadTrainingCheckpoint<typeof state>(dir);
      expect(back.state).toEqual(state);
      expect(back.optimizer.step).toBe(3);
      for (const n of names) {
        expect(Array.from(back.optimizer.m[n])).toEqual(Array.from(optimizer.m[n]));
        expect(Array.from(back.optimizer.v[n])).toEqual(Array.from(optimizer.v[n]));
      }
      for (const [n, t] of weights) expect(Array.from(back.weights.get(n)!.data)).toEqual(Array.from(t.data));
      expect(back.tokenizerJson).toEqual({ model: { type: 'WordLevel' } });
      await rm(dir, { recursive: true });
    });
  });

  describe('having a plain model directory without trainer state', () => {
    it('should fail with CHECKPOINT_MISSING_FILE naming trainer_state.json', async () => {
      const dir = join(await mkdtemp(join(tmpdir(), 'ludus-ckpt-')), 'model');
      const { config, weights } = randomModel();
      await saveCheckpoint(dir, config, weights);
      await expect(loadTrainingCheckpoint(dir)).rejects.toSatisfy((e) => LudusError.is(e, 'CHECKPOINT_MISSING_FILE') && (e as Error).message.includes('trainer_state.json'));
    });
  });
});
