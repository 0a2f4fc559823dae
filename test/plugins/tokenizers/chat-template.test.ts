import { beforeAll, describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { applyChatTemplate } from '../../../plugins/tokenizers/chat-template.ts';
import { loadTokenizer, type TextTokenizer } from '../../../plugins/tokenizers/hf-tokenizer.ts';
import { QWEN3_DIR } from './worked-solutions.ts';

const question = [
  { role: 'system', content: 'Answer in \\boxed{}.' },
  { role: 'user', content: 'What is 2 plus 2?' },
];

describe('applyChatTemplate', () => {
  describe("having Qwen3's tokenizer_config.json", () => {
    let qwen3: TextTokenizer;
    beforeAll(async () => {
      qwen3 = await loadTokenizer(QWEN3_DIR);
    });

    describe('when asked for a generation prompt', () => {
      it('should render the turns in ChatML and open an assistant turn', () => {
        expect(applyChatTemplate(qwen3, question, { addGenerationPrompt: true })).toBe(
          '<|im_start|>system\nAnswer in \\boxed{}.<|im_end|>\n<|im_start|>user\nWhat is 2 plus 2?<|im_end|>\n<|im_start|>assistant\n',
        );
      });
    });

    describe('when thinking is turned off', () => {
      it('should close an empty think block in the assistant turn', () => {
        const rendered = applyChatTemplate(qwen3, question, { addGenerationPrompt: true, variables: { enable_thinking: false } });
        expect(rendered.endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true);
      });
    });

    describe('when the last turn is the assistant answer', () => {
      it('should render its reasoning and close the turn', () => {
        const answered = [...question, { role: 'assistant', content: '<think>\n2 and 2 make 4.\n</think>\n\n\\boxed{4}' }];
        expect(applyChatTemplate(qwen3, answered)).toMatch(/<\|im_start\|>assistant\n<think>\n2 and 2 make 4\.\n<\/think>\n\n\\boxed\{4\}<\|im_end\|>\n$/);
      });
    });

    it('should render special tokens the tokenizer encodes as single ids', () => {
      const ids = qwen3.encode(applyChatTemplate(qwen3, question, { addGenerationPrompt: true }));
      expect(ids[0]).toBe(qwen3.vocab.get('<|im_start|>'));
    });
  });

  describe('having a model without a chat template', () => {
    it('should throw TOKENIZER_INVALID naming the tokenizer', () => {
      const bare = { config: {}, source: 'tiny/tokenizer.json' };
      expect(() => applyChatTemplate(bare, question)).toThrow(LudusError);
      expect(() => applyChatTemplate(bare, question)).toThrow(/TOKENIZER_INVALID.*tiny\/tokenizer\.json.*chat_template/);
    });
  });

  describe('having a template that refuses the conversation', () => {
    it('should throw INPUT_INVALID with the template’s reason', () => {
      const strict = { config: { chat_template: "{{ raise_exception('roles must alternate') }}" }, source: 'strict/tokenizer.json' };
      expect(() => applyChatTemplate(strict, question)).toThrow(/INPUT_INVALID.*roles must alternate/);
    });
  });

  describe('having a template that does not parse', () => {
    it('should throw TOKENIZER_INVALID naming the tokenizer', () => {
      const broken = { config: { chat_template: '{% for m in messages %}' }, source: 'broken/tokenizer.json' };
      expect(() => applyChatTemplate(broken, question)).toThrow(/TOKENIZER_INVALID.*broken\/tokenizer\.json/);
    });
  });
});
