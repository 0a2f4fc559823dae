import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { buildSchedule, type ScheduleSpec } from '../../../core/schedules/spec.ts';
import { Decoder } from '../../../native/runtime/decoder.ts';
import { generate, type GenerateOptions, type Rollout } from '../../../native/runtime/generate.ts';
import type { Policy } from '../../../native/runtime/policy.ts';
import { EngineClient, type ClientGenerateOptions } from '../../../native/worker/engine-client.ts';
import { randomModel } from '../../support/models.ts';

const senior = randomModel({}, 7, 'senior').policy;
const junior = randomModel({}, 8, 'junior').policy;
const prompts = [[1, 2, 3], [4, 5], [6, 7, 8, 9, 10], [11]];
const decoderOptions = { batch: prompts.length, maxLen: 64, threads: 1 };
/** Far more steps than run before an abort lands, even on a loaded machine (a step takes well under a millisecond). */
const endless = { maxNewTokens: 4000, stopTokens: [] };
const endlessDecoder = { ...decoderOptions, maxLen: 4010 };
const wordSpec: ScheduleSpec = { kind: 'word', p: 0.5, K: 3, seed: 11, boundary: [2, 3, 5, 7, 11, 13, 17, 19, 23] };
const base: ClientGenerateOptions = {
  maxNewTokens: 40,
  sampling: { temperature: 0.9, topK: 20, topP: 1 },
  seed: 5,
  stopTokens: [0],
  partnerLogprobs: true,
};

/** The same generation run on this thread, with the schedule built from the same spec. */
async function inProcess(policies: Policy[], options: ClientGenerateOptions): Promise<{ rollouts: Rollout[]; steps: [number, number[], number[]][] }> {
  const decoder = await Decoder.create(policies, decoderOptions);
  const steps: [number, number[], number[]][] = [];
  const { schedule, onStep: _, ...rest } = options;
  const local: GenerateOptions = {
    ...rest,
    schedule: schedule && buildSchedule(schedule),
    onStep: (step, tokens, authors) => steps.push([step, [...tokens], [...authors]]),
  };
  const rollouts = await generate(decoder, prompts, local);
  await decoder.release();
  return { rollouts, steps };
}

describe('EngineClient', () => {
  let client: EngineClient;
  beforeAll(async () => {
    client = await EngineClient.start({ threads: 1 });
  });
  afterAll(() => client.close());

  describe('having a word-handoff schedule spec', () => {
    it('should generate the same rollouts as generate in-process, token for token', async () => {
      const decoder = await client.createDecoder([senior, junior], decoderOptions);
      const options = { ...base, schedule: wordSpec };
      const remote = await client.generate(decoder, prompts, options);
      const { rollouts } = await inProcess([senior, junior], options);
      expect(remote).toEqual(rollouts);
      expect(new Set(remote.flatMap((r) => r.authors))).toEqual(new Set([0, 1]));
      await client.release(decoder);
    });
  });

  describe('having no schedule', () => {
    it('should let the first policy write everything, as in-process', async () => {
      const decoder = await client.createDecoder([senior], decoderOptions);
      const remote = await client.generate(decoder, prompts, { ...base, partnerLogprobs: false });
      expect(remote).toEqual((await inProcess([senior], { ...base, partnerLogprobs: false })).rollouts);
      expect(remote.every((r) => r.authors.every((a) => a === 0))).toBe(true);
      await client.release(decoder);
    });
  });

  describe('having an onStep listener', () => {
    it('should stream every step, in order, with the tokens and authors in-process generate reports', async () => {
      const decoder = await client.createDecoder([senior, junior], decoderOptions);
      const streamed: [number, number[], number[]][] = [];
      const options = { ...base, schedule: wordSpec };
      const rollouts = await client.generate(decoder, prompts, {
        ...options,
        onStep: (step, tokens, authors) => streamed.push([step, [...tokens], [...authors]]),
      });
      const longest = Math.max(...rollouts.map((r) => r.tokens.length));
      expect(streamed.map(([step]) => step)).toEqual(Array.from({ length: longest }, (_, i) => i));
      for (const [step, tokens, authors] of streamed) {
        for (const [row, rollout] of rollouts.entries()) {
          expect(tokens[row]).toBe(rollout.tokens[step] ?? -1);
          if (step < rollout.tokens.length) expect(authors[row]).toBe(rollout.authors[step]);
        }
      }
      expect(streamed).toEqual((await inProcess([senior, junior], options)).steps);
      await client.release(decoder);
    });
  });

  describe('having an abort signal', () => {
    it('should stop the worker loop soon after the signal fires', async () => {
      const decoder = await client.createDecoder([senior], endlessDecoder);
      const controller = new AbortController();
      const rollouts = await client.generate(decoder, prompts, {
        ...base,
        ...endless,
        signal: controller.signal,
        onStep: (step) => step === 3 && controller.abort(),
      });
      expect(rollouts.every((r) => r.finish === 'aborted')).toBe(true);
      expect(rollouts[0].tokens.length).toBeGreaterThanOrEqual(4);
      expect(rollouts[0].tokens.length).toBeLessThan(endless.maxNewTokens);
      await client.release(decoder);
    });

    it('should generate nothing when the signal has already fired', async () => {
      const decoder = await client.createDecoder([senior], decoderOptions);
      const rollouts = await client.generate(decoder, prompts, { ...base, signal: AbortSignal.abort() });
      expect(rollouts.map((r) => [r.finish, r.tokens.length])).toEqual(prompts.map(() => ['aborted', 0]));
      await client.release(decoder);
    });
  });

  describe('having two generations on one decoder at once', () => {
    it('should run them one after the other, each as if alone', async () => {
      const decoder = await client.createDecoder([senior, junior], decoderOptions);
      const first = { ...base, schedule: wordSpec };
      const second = { ...base, seed: 99, schedule: { ...wordSpec, p: 0.2 } };
      const [a, b] = await Promise.all([client.generate(decoder, prompts, first), client.generate(decoder, prompts, second)]);
      expect(a).toEqual((await inProcess([senior, junior], first)).rollouts);
      expect(b).toEqual((await inProcess([senior, junior], second)).rollouts);
      await client.release(decoder);
    });
  });

  describe('having a policy update', () => {
    const updated = randomModel({}, 21, 'senior').policy;

    it('should decode with the new weights, by copy: the caller keeps its arrays', async () => {
      const decoder = await client.createDecoder([senior, junior], decoderOptions);
      await client.updatePolicy(decoder, 0, updated);
      const options = { ...base, schedule: wordSpec };
      expect(await client.generate(decoder, prompts, options)).toEqual((await inProcess([updated, junior], options)).rollouts);
      expect(updated.weights.get('model.norm.weight')!.data.length).toBeGreaterThan(0);
      await client.release(decoder);
    });

    it('should decode with the new weights by transfer, leaving the caller empty arrays', async () => {
      const expected = (await inProcess([updated, junior], base)).rollouts;
      const moved = randomModel({}, 21, 'senior').policy;
      const decoder = await client.createDecoder([senior, junior], decoderOptions);
      await client.updatePolicy(decoder, 0, moved, { transfer: true });
      expect([...moved.weights.values()].every((t) => t.data.length === 0)).toBe(true);
      expect(await client.generate(decoder, prompts, base)).toEqual(expected);
      await client.release(decoder);
    });
  });

  describe('having a released decoder', () => {
    it('should refuse further use with INPUT_INVALID', async () => {
      const decoder = await client.createDecoder([senior], decoderOptions);
      await client.release(decoder);
      const error = await client.generate(decoder, prompts, base).catch((e: unknown) => e);
      expect(LudusError.is(error, 'INPUT_INVALID')).toBe(true);
    });
  });
});

describe('EngineClient.close', () => {
  describe('having a generation running', () => {
    it('should abort it, release everything and fail later calls with WORKER_FAILED', async () => {
      const client = await EngineClient.start({ threads: 1 });
      const decoder = await client.createDecoder([senior], endlessDecoder);
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const generation = client.generate(decoder, prompts, { ...base, ...endless, onStep: () => started() });
      await running;
      await client.close();
      const rollouts = await generation;
      expect(rollouts.every((r) => r.finish === 'aborted' && r.tokens.length < endless.maxNewTokens)).toBe(true);
      const error = await client.createDecoder([senior], decoderOptions).catch((e: unknown) => e);
      expect(LudusError.is(error, 'WORKER_FAILED')).toBe(true);
    });
  });
});
