import { describe, expect, it } from 'vitest';
import { tangoDepartures } from '../../../lab/experiments/tango-report.ts';

describe('tangoDepartures', () => {
  const run = { base: 'models/arithmetic-judge', lr: 1e-4, groupSize: 8, generatorSteps: 12 };

  it("should name the supervised verifier start as a departure on arithmetic, where the paper's verifier has no SFT (§4.1)", () => {
    expect(tangoDepartures({ ...run, task: 'arithmetic' })).toEqual([
      "the learning rate 0.0001 (the paper's is 1e-6, §4)",
      "groups of 8 (the paper's 5)",
      "12 generator updates (the paper's 200)",
      "the verifier's start, `models/arithmetic-judge` (the paper's verifier starts from the base without SFT, §4.1; the shipped bases were supervised on verification examples)",
    ]);
  });

  it("should not on last-letter, where the paper supervises both policies first (§4.3)", () => {
    const departures = tangoDepartures({ ...run, base: 'models/last-letter', task: 'last-letter' });
    expect(departures).toHaveLength(3);
    expect(departures.join(' ')).not.toContain("verifier's start");
  });
});
