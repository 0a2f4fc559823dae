import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import type { ScheduleSpec } from '../../../core/schedules/spec.ts';
import { Decoder } from '../../../native/runtime/decoder.ts';
import { EngineClient } from '../../../native/worker/engine-client.ts';
import { randomModel } from '../../support/models.ts';
import { rejection } from '../../support/errors.ts';

const { policy } = randomModel();
const stranger = { ...randomModel({}, 9, 'stranger').policy, tokenizerHash: 'another-vocab' };
const sampling = { temperature: 1, topK: 0, topP: 1 };

describe('EngineClient errors', () => {
  let client: EngineClient;
  beforeAll(async () => {
    client = await EngineClient.start({ threads: 1 });
  });
  afterAll(() => client.close());

  describe('having a coded error thrown in the worker', () => {
    it('should arrive as a LudusError with the code, message and details the in-process call throws', async () => {
      const local = await rejection(Decoder.create([policy, stranger], { batch: 1, maxLen: 8, threads: 1 }));
      const remote = await rejection(client.createDecoder([policy, stranger], { batch: 1, maxLen: 8 }));
      expect(LudusError.is(remote, 'TOKENIZER_MISMATCH')).toBe(true);
      expect(remote.message).toBe(local.message);
      expect(remote.details).toEqual(local.details);
    });

    it('should carry the worker stack, then the caller frames', async () => {
      const remote = await rejection(client.createDecoder([policy, stranger], { batch: 1, maxLen: 8 }));
      expect(remote.stack).toContain('assertSharedTokenizer');
      expect(remote.stack).toContain('in the engine worker, called from');
      expect(remote.stack).toContain('errors.test.ts');
    });
  });

  describe('having a generation that outgrows the decoder', () => {
    it('should fail with SEQUENCE_TOO_LONG and leave the worker usable', async () => {
      const decoder = await client.createDecoder([policy], { batch: 1, maxLen: 6 });
      const error = await rejection(client.generate(decoder, [[1, 2, 3]], { maxNewTokens: 10, sampling, seed: 1, stopTokens: [] }));
      expect(error.code).toBe('SEQUENCE_TOO_LONG');
      expect(error.details).toEqual({ row: 0, maxLen: 6 });
      const [rollout] = await client.generate(decoder, [[1, 2]], { maxNewTokens: 3, sampling, seed: 1, stopTokens: [] });
      expect(rollout.tokens).toHaveLength(3);
      await client.release(decoder);
    });
  });

  describe('having an invalid schedule spec', () => {
    it('should fail with CONFIG_INVALID before generating', async () => {
      const decoder = await client.createDecoder([policy, policy], { batch: 1, maxLen: 16 });
      const schedule: ScheduleSpec = { kind: 'word', p: 2, K: 3, seed: 1, boundary: [] };
      const error = await rejection(client.generate(decoder, [[1]], { maxNewTokens: 3, sampling, seed: 1, schedule }));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toContain('"p"');
      await client.release(decoder);
    });
  });

  describe('having a handle the worker does not know', () => {
    it('should fail with INPUT_INVALID', async () => {
      const error = await rejection(client.learnerStep({ kind: 'learner', id: 12345 }, { rows: 1, cols: 1, inputIds: [1], targets: [1], lossMask: [1] }));
      expect(error.code).toBe('INPUT_INVALID');
      expect(error.details).toEqual({ kind: 'learner', id: 12345 });
    });
  });
});
