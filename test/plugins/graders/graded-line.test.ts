import { describe, expect, it } from 'vitest';
import { gradeJsonLine, parseGradeLine } from '../../../plugins/graders/graded-line.ts';
import { STRICT_EXTRACTION } from '../../../plugins/graders/math/extract.ts';

describe('gradeJsonLine', () => {
  describe('having a gold and a pred', () => {
    it('should give answer_present and correct, nothing else', () => {
      expect(gradeJsonLine('{"gold": "\\\\frac12", "pred": "so \\\\boxed{0.5}"}', 1)).toEqual({ answer_present: true, correct: true });
      expect(gradeJsonLine('{"gold": "3", "pred": "4"}', 1)).toEqual({ answer_present: true, correct: false });
    });

    it('should look for the answer in every place by default, and only in boxes when told strict', () => {
      expect(gradeJsonLine('{"gold": "3", "pred": "The final answer is $3$."}', 1)).toEqual({ answer_present: true, correct: true });
      expect(gradeJsonLine('{"gold": "3", "pred": "The final answer is $3$."}', 1, STRICT_EXTRACTION)).toEqual({ answer_present: false, correct: false });
    });

    it('should accept a numeric gold, as GSM8K-style data has', () => {
      expect(gradeJsonLine('{"gold": 1000, "pred": "\\\\boxed{1,000}", "id": 7}', 1)).toEqual({ answer_present: true, correct: true });
    });
  });

  describe('having a numeric gold past 2^53', () => {
    it('should compare its digits exactly, not the double it would round to', () => {
      // 12345678901234567890 as a double is 12345678901234567000: a wrong answer that rounding would accept.
      expect(gradeJsonLine('{"gold": 12345678901234567890, "pred": "\\\\boxed{12345678901234567000}"}', 1)).toEqual({ answer_present: true, correct: false });
      expect(gradeJsonLine('{"gold": 12345678901234567890, "pred": "\\\\boxed{12345678901234567890}"}', 1)).toEqual({ answer_present: true, correct: true });
      expect(parseGradeLine('{"gold": 9007199254740993, "pred": ""}', 1)).toEqual({ gold: '9007199254740993', pred: '' });
    });
  });

  describe('having a bad line', () => {
    it.each([
      ['not JSON', '{"gold": "3", ', 'not JSON'],
      ['an empty line', '', 'empty line'],
      ['no pred', '{"gold": "3"}', 'pred'],
      ['a numeric pred', '{"gold": "3", "pred": 3}', 'pred'],
      ['an array', '["3", "\\\\boxed{3}"]', 'expected'],
      ['null', 'null', 'expected'],
    ])('should return an INPUT_INVALID error naming the line for %s', (_name, text, mentions) => {
      const graded = gradeJsonLine(text, 12);
      expect(graded).toMatchObject({ error: { code: 'INPUT_INVALID', line: 12 } });
      expect('error' in graded && graded.error.message).toContain(mentions);
    });
  });
});
