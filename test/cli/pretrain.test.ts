import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLudus } from '../support/cli.ts';

const tiny = {
  taskOptions: { maxDigits: 2 },
  steps: 4,
  batch: 2,
  vocabSize: 300,
  tokenizerProblems: 200,
  model: { hidden_size: 32, intermediate_size: 48, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1, head_dim: 16 },
  maxTokens: 160,
};

describe('ludus pretrain', () => {
  describe('having its stderr in a log (not a terminal)', () => {
    it('should write a line as each phase starts, as training advances, and when done', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-pretrain-cli-'));
      const config = join(dir, 'tiny.json');
      await writeFile(config, JSON.stringify(tiny));
      const result = await runLudus(['pretrain', '--task', 'arithmetic', '--config', config, '--out', join(dir, 'run'), '--threads', '1']);
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stderr.trim().split('\n').filter((line) => line.startsWith('pretrain arithmetic: '));
      expect(lines[0]).toBe('pretrain arithmetic: training the tokenizer on 200 problems (overall 0%)');
      expect(lines).toContain('pretrain arithmetic: supervised training (overall 0%)');
      expect(lines.some((line) => line.startsWith('pretrain arithmetic: supervised training (overall 100%, step 4/4, loss '))).toBe(true);
      expect(lines.slice(-2)).toEqual(['pretrain arithmetic: saving the model (overall 100%)', 'pretrain arithmetic: done (overall 100%)']);
    });
  });
});
