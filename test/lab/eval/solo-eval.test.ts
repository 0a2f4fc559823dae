import { describe, expect, it } from 'vitest';
import { evaluateSolo } from '../../../lab/eval/solo-eval.ts';
import type { Grader } from '../../../core/grading/verdict.ts';
import { arithmeticTask } from '../../../plugins/tasks/arithmetic/arithmetic-task.ts';
import { tokenizerFromJson } from '../../../plugins/tokenizers/hf-tokenizer.ts';
import { trainBpe } from '../../../plugins/tokenizers/bpe-trainer.ts';
import { initWeights, presetConfig } from '../../../native/model/presets.ts';

const task = arithmeticTask({ maxDigits: 2 });
const tokenizerJson = trainBpe(task.problems('train', 100).map((p) => p.prompt + p.solution), { vocabSize: 300 });
const tokenizer = tokenizerFromJson(tokenizerJson);
const config = presetConfig('qwen3-micro', { vocab_size: tokenizer.vocabSize });
const policy = { name: 'micro', config, weights: initWeights(config, 3, 0.2), tokenizerHash: tokenizer.hash };

const run = (grade: Grader, samples = 4) =>
  evaluateSolo({ policy, tokenizer, task, split: 'test', problems: 5, samples, grade, temperature: 1, topP: 1, maxNewTokens: 12, stopTokens: [0], seed: 1, batch: 8, threads: 1 });

describe('evaluateSolo', () => {
  describe('having a grader that accepts exactly the responses it has seen an even number of', () => {
    it('should count correct samples per problem and report their pass@k', async () => {
      let calls = 0;
      const result = await run(() => ({ answer_present: true, correct: calls++ % 2 === 0 }));
      expect(result.n_problems).toBe(5);
      expect(result.samples).toBe(4);
      expect(Object.keys(result.pass_at_k)).toEqual(['1', '2', '4']);
      const meanCorrect = result.per_problem.reduce((a, p) => a + p.correct, 0) / (5 * 4);
      expect(result.pass_at_k['1']).toBeCloseTo(meanCorrect, 12);
      expect(result.pass_at_k['1']).toBeCloseTo(0.5, 12);
      expect(result.pass_at_k['4']).toBeGreaterThanOrEqual(result.pass_at_k['2']);
    });
  });

  describe('having the real problems of a random model', () => {
    it('should grade each decoded response against its problem and replay with the same seed', async () => {
      const seen: string[] = [];
      const grade: Grader = (gold, prediction) => {
        seen.push(`${gold}|${prediction}`);
        return { answer_present: false, correct: false };
      };
      const first = await run(grade, 2);
      const again: string[] = [];
      await run((gold, prediction) => {
        again.push(`${gold}|${prediction}`);
        return { answer_present: false, correct: false };
      }, 2);
      expect(seen).toEqual(again);
      expect(new Set(seen.map((s) => s.split('|')[0]))).toEqual(new Set(task.problems('test', 5).map((p) => p.answer)));
      expect(first.pass_at_k['1']).toBe(0);
    });
  });
});
