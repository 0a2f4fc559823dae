import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ModelConfig } from '../../../native/model/config.ts';
import { chooseRunBudget, RUN_BUDGET_BYTES, RUN_BUDGET_CAP_BYTES, rowsWithinBudget, trainRunBytes } from '../../../native/model/memory.ts';
import type { Weights } from '../../../native/model/weights.ts';
import { BAKED_MAX_BYTES, decoderBinding } from '../../../native/runtime/model-session.ts';

/** The shipped arithmetic base's shape: vocabulary 357, hidden 256, 4 layers of 4 heads of 64, MLP 688. */
const ARITHMETIC = { vocabSize: 357, hiddenSize: 256, intermediateSize: 688, numLayers: 4, numHeads: 4, headDim: 64 } as ModelConfig;

describe('the memory of a forward+backward run, and the rows chosen for one', () => {
  it('should count, by hand, 34,324 floats a token and 16 × cols² a row of attention per layer', () => {
    // per token: 4·357 + 4·(12·256 + 6·688 + 4·4·64) = 1,428 + 4·8,224 = 34,324; attention: 4·4·4·320² = 6,553,600.
    expect(trainRunBytes(ARITHMETIC, 1, 320)).toBe((320 * 34_324 + 6_553_600) * 4);
    expect(trainRunBytes(ARITHMETIC, 16, 320)).toBe(16 * trainRunBytes(ARITHMETIC, 1, 320));
  });

  it('should run short rows whole and long ones a few at a time, never fewer than one', () => {
    // 70,148,160 bytes a row at 320 tokens: 15 of them fit in 1 GiB.
    expect(Math.floor(RUN_BUDGET_BYTES / trainRunBytes(ARITHMETIC, 1, 320))).toBe(15);
    expect(rowsWithinBudget(ARITHMETIC, 64, 320)).toBe(15);
    expect(rowsWithinBudget(ARITHMETIC, 8, 320)).toBe(8);
    expect(rowsWithinBudget(ARITHMETIC, 64, 16)).toBe(64);
    expect(rowsWithinBudget(ARITHMETIC, 64, 100_000)).toBe(1);
  });

  it('should fit as many rows as a larger budget holds', () => {
    expect(rowsWithinBudget(ARITHMETIC, 64, 320, 4 * RUN_BUDGET_BYTES)).toBe(61);
    expect(rowsWithinBudget(ARITHMETIC, 64, 320, trainRunBytes(ARITHMETIC, 2, 320) - 1)).toBe(1);
  });
});

describe('the run budget chosen from the memory available', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });
  const GiB = 2 ** 30;
  const withAvailable = (bytes: number) => vi.stubEnv('LUDUS_MEMORY_BYTES', String(bytes));

  it('should take half of what the training state leaves, shared by the learners', () => {
    withAvailable(14 * GiB);
    expect(chooseRunBudget(4 * GiB)).toBe(5 * GiB);
    expect(chooseRunBudget(4 * GiB, 2)).toBe(2.5 * GiB);
  });

  it('should never go below the 1 GiB floor nor above the 8 GiB cap', () => {
    withAvailable(3 * GiB);
    expect(chooseRunBudget(2.5 * GiB)).toBe(RUN_BUDGET_BYTES);
    expect(chooseRunBudget(10 * GiB)).toBe(RUN_BUDGET_BYTES);
    withAvailable(100 * GiB);
    expect(chooseRunBudget(GiB)).toBe(RUN_BUDGET_CAP_BYTES);
  });
});

describe('the weight binding a decoder takes by default', () => {
  const weightsOf = (bytes: number): Weights => new Map([['w', { dims: [bytes / 4], data: { byteLength: bytes } as unknown as Float32Array }]]);

  const GiB = 2 ** 30;
  afterEach(() => {
    vi.unstubAllEnvs();
  });
  const withMemory = (bytes: number, check: () => void) => {
    vi.stubEnv('LUDUS_MEMORY_BYTES', String(bytes));
    check();
  };

  it('should bake small models in as initializers on the CPU, updated or not', () => {
    withMemory(64 * 2 ** 20, () => {
      expect(decoderBinding({}, weightsOf(16 * 2 ** 20), false)).toBe('initializers');
      expect(decoderBinding({}, weightsOf(BAKED_MAX_BYTES), true)).toBe('initializers');
      expect(decoderBinding({}, weightsOf(BAKED_MAX_BYTES + 4), false)).toBe('inputs');
      expect(decoderBinding({}, weightsOf(1024), true, 0)).toBe('inputs');
    });
  });

  it('should bake a large model only while it is not updated and baking takes at most half the memory available', () => {
    const large = weightsOf(2.4 * GiB);
    withMemory(9.6 * GiB, () => {
      expect(decoderBinding({}, large, false)).toBe('initializers');
      expect(decoderBinding({}, large, true)).toBe('inputs');
    });
    withMemory(9.6 * GiB - 4, () => expect(decoderBinding({}, large, false)).toBe('inputs'));
  });

  it('should leave the memory reserved for others out of what baking may take', () => {
    const large = weightsOf(2.4 * GiB);
    withMemory(13.6 * GiB, () => {
      expect(decoderBinding({}, large, false, BAKED_MAX_BYTES, 4 * GiB)).toBe('initializers');
      expect(decoderBinding({}, large, false, BAKED_MAX_BYTES, 4 * GiB + 4)).toBe('inputs');
    });
  });

  it('should take the binding asked for, and initializers on CUDA', () => {
    expect(decoderBinding({ weights: 'inputs' }, weightsOf(4), false)).toBe('inputs');
    expect(decoderBinding({ weights: 'initializers' }, weightsOf(2.4 * GiB), true)).toBe('initializers');
    expect(decoderBinding({ device: 'cuda' }, weightsOf(2.4 * GiB), true)).toBe('initializers');
  });
});
