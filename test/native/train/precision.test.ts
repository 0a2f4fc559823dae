import { describe, expect, it } from 'vitest';
import { initWeights, presetConfig } from '../../../native/model/presets.ts';
import { buildScoreGraph } from '../../../native/train/train-graph.ts';
import { floatTensor, openGraph, randomBatch, tokenFeeds, weightFeeds } from './fixtures.ts';

describe('float32 forward against float64', () => {
  for (const [preset, std] of [['qwen3-micro', 0.3], ['qwen3-4m', 0.02]] as const) {
    it(`${preset}: per-token logprobs agree to 1e-4`, async () => {
      const config = presetConfig(preset);
      const weights = initWeights(config, 8, std);
      const batch = randomBatch(config, [16, 11], 16, 4);
      const run = async (dtype: 'float32' | 'float64'): Promise<Float64Array> => {
        const graph = await openGraph(buildScoreGraph(config, { dtype }), 2);
        const out = await graph.run({ ...weightFeeds(weights, dtype), ...tokenFeeds(batch), temperature: floatTensor(dtype, [0.8], []) });
        await graph.session.release();
        return out.logprobs;
      };
      const single = await run('float32');
      const double = await run('float64');
      let maxDiff = 0;
      for (let i = 0; i < double.length; i++) maxDiff = Math.max(maxDiff, Math.abs(single[i] - double[i]));
      expect(maxDiff).toBeLessThan(1e-4);
    });
  }
});
