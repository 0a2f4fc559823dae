import { describe, expect, it } from 'vitest';
import { benchRealSize, DEVICE_PHASES } from '../../../native/bench/real-size.ts';

describe('benchRealSize, measured as on a GPU', () => {
  describe("having the large-matmul ceiling and the CPU's scores as the reference asked for on the CPU (a micro preset)", () => {
    it("should report the ceiling, the score against the CPU's, solo and tandem decode against the ceiling, and training", { timeout: 300_000 }, async () => {
      const report = await benchRealSize({
        preset: 'qwen3-micro', threads: 1, seed: 1, batches: [1, 2], newTokens: { 1: 4, 2: 4 }, promptTokens: 4, repeats: 1,
        trainRows: 1, trainCols: 8, trainSteps: 1, scoreTokens: 16, torch: 'off',
        phases: DEVICE_PHASES, ceiling: 'matmul', matmulSize: 128, cpuReference: true,
      });
      expect(Object.keys(report.phases)).toEqual(['checkpoint', 'matmul-peak', 'score', 'score:cpu', 'decode', 'train']);
      expect(report.phases['matmul-peak']).toMatchObject({ matmul_size: 128, matmul_layers: 8 });
      expect(report.phases['matmul-peak'].matmul_peak_gflops).toBeGreaterThan(0);
      expect(report.phases['score:cpu'].logprobs).toHaveLength(16);
      // The same device twice: the same numbers.
      expect(report.summary.logprob_max_abs_diff_vs_cpu).toBe(0);
      for (const batch of [1, 2]) {
        const row = report.summary[`b${batch}`] as Record<string, number>;
        expect(row.tandem_over_solo).toBeGreaterThan(0);
        expect(row.efficiency_vs_matmul_peak).toBeGreaterThan(0);
      }
      const train = report.summary.train as Record<string, number>;
      expect(train.train_tok_s).toBe(report.phases.train.train_tok_s);
      expect(train.efficiency_vs_matmul_peak).toBeGreaterThan(0);
    });
  });
});
