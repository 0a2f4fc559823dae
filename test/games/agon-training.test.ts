import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MetricsLine } from '../../engine/trainer/metrics-line.ts';
import type { TranscriptLine } from '../../engine/trainer/transcript-line.ts';
import { readOptimizer } from '../../engine/trainer/training-checkpoint.ts';
import { withheldSummary } from '../../plugins/protocols/draft-challenge.ts';
import { loadTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import { jsonl, runTraining, tinyConfig } from '../support/training.ts';

describe('training agon on the shipped base', () => {
  it('trains two rank-16 adapters on one base, swapping roles every step, and the challenger never reads a draft\'s final answer', async () => {
    const { out } = await runTraining(tinyConfig({ game: 'agon', steps: 2, problemsPerStep: 2, groupSize: 2, checkpointEvery: 1, knobs: { turnTokens: 64 } }));
    const metrics = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
    expect(metrics.map((line) => line.seats)).toEqual([
      { drafter: 'A', challenger: 'B' },
      { drafter: 'B', challenger: 'A' },
    ]);
    for (const line of metrics) expect(line.trains).toEqual(['A', 'B']);
    for (const policy of ['A', 'B']) {
      const dir = join(out, 'checkpoint', 'policies', policy);
      expect(await readdir(dir)).toContain('adapter_model.safetensors');
      const optimizer = await readOptimizer(join(dir, 'optimizer.safetensors'));
      expect(Object.keys(optimizer.m).every((name) => name.includes('.lora_'))).toBe(true);
    }
    const tokenizer = await loadTokenizer(out);
    const lines = await jsonl<TranscriptLine>(join(out, 'transcripts.jsonl'));
    let withheld = 0;
    for (const line of lines) {
      const [draft, challenge] = line.turns;
      expect([draft.role, challenge.role]).toEqual(['drafter', 'challenger']);
      const context = tokenizer.decode(challenge.promptIds);
      const { summary, answer } = withheldSummary(draft.text, { maskMentions: true });
      expect(context).toContain(summary);
      // What the challenger reads beyond the problem's own prompt (whose instruction names \boxed{} itself): in the
      // default 'context' layout, the summary comes before the problem.
      expect(context).toContain(line.prompt);
      const read = context.replace(line.prompt, '');
      if (answer !== null) {
        withheld++;
        expect(read).not.toMatch(new RegExp(`(?<![0-9.])${answer}(?![0-9]|\\.[0-9])`));
        expect(read).not.toContain('\\boxed');
      }
    }
    expect(withheld).toBeGreaterThan(0);
  });
});
