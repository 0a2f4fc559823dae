import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { saveCheckpoint } from '../../../native/io/checkpoint.ts';
import { packageRoot } from '../../../native/io/package-root.ts';
import { describeNeeding, PYTHON, pythonMissing } from '../../support/optional.ts';
import { randomModel, VARIANTS } from '../../support/models.ts';

/**
 * tools/python/torch_speed_peer.py, the PyTorch peer of `ludus bench engine`, against the correctness reference
 * (qwen3_reference.py) on the same weights: the log-probabilities of a full forward and of a prefill followed by
 * cached one-token steps (the path its decoding is timed on) within 1e-4, the policy-gradient loss and the gradients.
 */
const SCRIPT = join(packageRoot(), 'tools', 'python', 'torch_speed_peer.py');

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ludus-speed-peer-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function verify(checkpoint: string): Promise<Record<string, number>> {
  // The cached path as the bench decodes: scripted, frozen and optimized for inference.
  const { stdout } = await promisify(execFile)(PYTHON, [SCRIPT, 'verify', '--checkpoint', checkpoint, '--rows', '3', '--cols', '24', '--prefix', '5', '--threads', '1', '--jit', 'freeze']);
  return JSON.parse(stdout);
}

describeNeeding('torch', pythonMissing(['torch']), 'tools/python/torch_speed_peer.py', () => {
  const cases: Array<[string, () => Promise<string>]> = [
    ['the shipped base (qwen3, tied, BF16 on disk)', async () => join(packageRoot(), 'models', 'arithmetic')],
    [
      'llama with attention and mlp bias (untied)',
      async () => {
        const { config, weights } = randomModel({ ...VARIANTS['llama with attention and mlp bias'], tie_word_embeddings: false });
        await saveCheckpoint(join(dir, 'llama'), config, weights);
        return join(dir, 'llama');
      },
    ],
  ];
  for (const [label, checkpoint] of cases) {
    it(`should give the reference's log-probs within 1e-4, full and cached, and its loss and gradients: ${label}`, async () => {
      const result = await verify(await checkpoint());
      expect(result.max_diff_full).toBeLessThan(1e-4);
      expect(result.max_diff_cached).toBeLessThan(1e-4);
      expect(result.loss).toBeCloseTo(result.reference_loss, 5);
      expect(result.grad_norm / result.reference_grad_norm).toBeCloseTo(1, 4);
      expect(result.grad_norm).toBeGreaterThan(0);
    });
  }
});
