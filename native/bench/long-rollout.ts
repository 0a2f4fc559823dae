import { presetConfig } from '../model/presets.ts';
import { Decoder } from '../runtime/decoder.ts';
import { generate } from '../runtime/generate.ts';
import { buildSchedule } from '../../core/schedules/spec.ts';
import { benchPolicies, round, SAMPLING, syntheticBoundary } from './engine-bench.ts';

/** One long co-decoded rollout: every row writes `tokens` new tokens inside caches sized for exactly that. */
export async function benchLongRollout(options: { preset: string; batch: number; tokens: number; threads: number; seed: number }) {
  const config = presetConfig(options.preset, { max_position_embeddings: options.tokens + 16 });
  const { senior, junior } = benchPolicies(config, options.seed);
  const decoder = await Decoder.create([senior, junior], { batch: options.batch, maxLen: options.tokens + 16, threads: options.threads });
  const prompts = Array.from({ length: options.batch }, (_, r) => Array.from({ length: 16 }, (_, t) => 1 + ((r * 131 + t * 17) % (config.vocabSize - 1))));
  const schedule = buildSchedule({ kind: 'word', p: 0.5, K: 32, seed: options.seed, boundary: syntheticBoundary(config.vocabSize, options.seed) });
  const start = performance.now();
  const rollouts = await generate(decoder, prompts, { maxNewTokens: options.tokens, sampling: SAMPLING, seed: options.seed, schedule });
  const seconds = (performance.now() - start) / 1000;
  const tokens = rollouts.reduce((a, r) => a + r.tokens.length, 0);
  const result = { tokens: options.tokens, batch: options.batch, tok_s: round(tokens / seconds), cache_mb: round(decoder.cacheBytes / 2 ** 20), rss_mb: round(process.memoryUsage().rss / 2 ** 20) };
  await decoder.release();
  return result;
}
