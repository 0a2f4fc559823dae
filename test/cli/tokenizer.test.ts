import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { trainBpe } from '../../plugins/tokenizers/bpe-trainer.ts';
import { runLudus } from '../support/cli.ts';
import { QWEN3_DIR, workedSolutions } from '../plugins/tokenizers/worked-solutions.ts';

describe('ludus tokenizer inspect', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ludus-tokenizer-cli-'));
    await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(trainBpe(workedSolutions(200), { vocabSize: 400 })));
    await writeFile(join(dir, 'broken.json'), '{ "model": ');
  });

  describe('having the real Qwen3 model directory and --json', () => {
    it('should print its vocabulary size, marker and word-boundary count', async () => {
      const result = await runLudus(['tokenizer', 'inspect', QWEN3_DIR, '--json']);
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as { vocab_size: number; boundary_count: number; marker: string };
      expect(report.vocab_size).toBe(151_669);
      expect(report.marker).toBe('Ġ');
      expect(report.boundary_count).toBeGreaterThan(52_000);
      expect(report.boundary_count).toBeLessThan(54_000);
    });
  });

  describe('having a trained tokenizer.json file', () => {
    it('should print a readable summary', async () => {
      const result = await runLudus(['tokenizer', 'inspect', join(dir, 'tokenizer.json')]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^vocab size\s+400$/m);
      expect(result.stdout).toMatch(/^word marker\s+Ġ \(U\+0120\)$/m);
      expect(result.stdout).toMatch(/^word-initial ids\s+\d+ \(\d+\.\d% of the vocabulary\)$/m);
    });
  });

  describe('having a file that is not JSON', () => {
    it('should exit 2 with TOKENIZER_INVALID naming the file', async () => {
      const result = await runLudus(['tokenizer', 'inspect', join(dir, 'broken.json')]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`[TOKENIZER_INVALID] ${join(dir, 'broken.json')}`);
    });
  });

  describe('having a path with no tokenizer', () => {
    it('should exit 2 with CHECKPOINT_MISSING_FILE', async () => {
      const result = await runLudus(['tokenizer', 'inspect', join(dir, 'missing')]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('[CHECKPOINT_MISSING_FILE]');
    });
  });
});
