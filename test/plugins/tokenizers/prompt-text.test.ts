import { beforeAll, describe, expect, it } from 'vitest';
import { arithmeticTask } from '../../../plugins/tasks/arithmetic/arithmetic-task.ts';
import { loadTokenizer, type TextTokenizer } from '../../../plugins/tokenizers/hf-tokenizer.ts';
import { hasChatTemplate, promptText } from '../../../plugins/tokenizers/prompt-text.ts';
import { QWEN3_DIR } from './worked-solutions.ts';

const problem = arithmeticTask().sample('test', 0);

describe('promptText', () => {
  describe("having Qwen3's tokenizer, which has a chat template", () => {
    let qwen3: TextTokenizer;
    beforeAll(async () => {
      qwen3 = await loadTokenizer(QWEN3_DIR);
    });

    it('should by default put the question and its instruction to the model as one user turn and open the assistant turn', () => {
      expect(hasChatTemplate(qwen3)).toBe(true);
      expect(promptText(problem, qwen3)).toBe(`<|im_start|>user\n${problem.question} ${problem.instruction}<|im_end|>\n<|im_start|>assistant\n`);
      expect(problem.instruction).toBe("Let's think step by step and output the final answer within \\boxed{}.");
    });

    it('should give the task\'s plain prompt with the chat template off', () => {
      expect(promptText(problem, qwen3, 'off')).toBe(problem.prompt);
    });
  });

  describe('having a tokenizer without a chat template (the embedded base)', () => {
    it('should give the plain prompt, which carries the instruction too', () => {
      const bare = { config: {}, source: 'tiny/tokenizer.json' };
      expect(hasChatTemplate(bare)).toBe(false);
      expect(promptText(problem, bare)).toBe(problem.prompt);
      expect(problem.prompt).toBe(`Question: ${problem.question} ${problem.instruction}\nAnswer:\n`);
    });
  });
});
