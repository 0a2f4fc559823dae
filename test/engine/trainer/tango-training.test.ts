import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TranscriptLine } from '../../../engine/trainer/transcript-line.ts';
import { jsonl, runTraining, tinyConfig } from '../../support/training.ts';

// The interleave, both roles' metrics and --resume exactness are tested through the CLI (test/cli/train-tango.test.ts).
describe('tango training on the shipped base', () => {
  describe('having a warm-up step, then a generator step', () => {
    it('should judge one solution per prompt on verifier steps and a fresh solution per match on generator steps', async () => {
      const config = tinyConfig({
        game: 'tango',
        task: 'last-letter',
        grader: 'exact',
        // Hot enough that the confident base's solutions differ (at 1 its three short drafts can be the same).
        temperature: 3,
        problemsPerStep: 1,
        groupSize: 3,
        steps: 2,
        knobs: { verifierWarmup: 1, generatorTokens: 40, verifierTokens: 24 },
      });
      const { out } = await runTraining(config);
      const lines = await jsonl<TranscriptLine>(join(out, 'transcripts.jsonl'));
      const solutions = (step: number) => new Set(lines.filter((l) => l.step === step).map((l) => JSON.stringify(l.turns[0].responseIds)));
      expect(solutions(1).size).toBe(1);
      expect(lines.filter((l) => l.step === 1).map((l) => l.turns.map((t) => t.role))).toEqual([0, 1, 2].map(() => ['generator', 'verifier']));
      expect(solutions(2).size).toBeGreaterThan(1);
    });
  });
});
