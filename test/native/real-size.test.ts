import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { writeRandomCheckpoint } from '../../native/bench/random-checkpoint.ts';
import { python } from '../../native/bench/torch-baseline.ts';
import { runLudus } from '../support/cli.ts';

/**
 * The real-size check, opt-in (LUDUS_REAL_SIZE=1: minutes and 5 GB on a 2-core machine): a random checkpoint of
 * Qwen3-0.6B's shape (BF16, the real vocabulary, 2.4 GB as float32: past the 2 GB protobuf limit) scored by
 * `ludus score` and by the independent PyTorch reference. `ludus bench engine --preset qwen3-0.6b` measures the same.
 */
describe.runIf(process.env.LUDUS_REAL_SIZE === '1')('a Qwen3-0.6B-shaped checkpoint', () => {
  it('should be scored by ludus score as by the PyTorch reference, to within 1e-3 per token', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ludus-real-size-'));
    try {
      const dir = join(root, 'model');
      await writeRandomCheckpoint(dir, { preset: 'qwen3-0.6b', seed: 3, dtype: 'BF16' });
      const rng = new Rng(5);
      const tokens = Array.from({ length: 64 }, () => rng.int(151936));
      const result = await runLudus(['score', '--model', dir, '--tokens', tokens.join(','), '--json', '--threads', '2'], { timeoutMs: 600_000 });
      expect(result.code, result.stderr).toBe(0);
      const ours = JSON.parse(result.stdout).logprobs as (number | null)[];
      await writeFile(join(root, 'tokens.json'), JSON.stringify(tokens));
      const theirs = JSON.parse(await python(['qwen3_reference.py', 'score', '--checkpoint', dir, '--tokens', join(root, 'tokens.json')])).logprobs as (number | null)[];
      const gaps = ours.slice(1).map((x, i) => Math.abs(x! - theirs[i + 1]!));
      expect(Math.max(...gaps)).toBeLessThan(1e-3);
      // Random weights still give logits far from uniform, so the agreement is not that of two flat distributions.
      expect(Math.max(...ours.slice(1).map((x) => Math.abs(x! + Math.log(151936))))).toBeGreaterThan(0.1);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 900_000);
});
