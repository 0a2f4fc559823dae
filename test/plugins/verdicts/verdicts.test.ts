import { describe, expect, it } from 'vitest';
import { FORMAT_PENALTY, formatCriteria, formatScore } from '../../../plugins/verdicts/format-score.ts';
import { goldPathLabels } from '../../../plugins/verdicts/gold-path.ts';
import { parseVerification, writeVerification } from '../../../plugins/verdicts/step-verdicts.ts';
import { solutionSteps, verifierPrompt } from '../../../plugins/verdicts/verifier-prompt.ts';

const wellFormed = [
  'Step 1: ends with "t", so far "t". \\boxed{CORRECT}',
  'Step 2: ends with "a", so far "ta". \\boxed{INCORRECT}',
  'Step 3: the answer is "ta". \\boxed{INCORRECT}',
  'Final: \\boxed{INCORRECT}',
].join('\n');

describe('parseVerification', () => {
  describe('having a well-formed verification', () => {
    it('should read every step judgment with its reason, and the final verdict', () => {
      expect(parseVerification(wellFormed)).toEqual({
        steps: [
          { number: 1, justification: 'ends with "t", so far "t".', correct: true },
          { number: 2, justification: 'ends with "a", so far "ta".', correct: false },
          { number: 3, justification: 'the answer is "ta".', correct: false },
        ],
        final: false,
        finals: 1,
        finalLast: true,
        strayLines: 0,
      });
    });

    it('should read back what writeVerification writes', () => {
      const text = writeVerification([{ justification: 'ends with "t", so far "t".', correct: true }, { justification: 'the answer is "t".', correct: true }], true);
      expect(text).toBe('Step 1: ends with "t", so far "t". \\boxed{CORRECT}\nStep 2: the answer is "t". \\boxed{CORRECT}\nFinal: \\boxed{CORRECT}');
      expect(parseVerification(text).final).toBe(true);
    });
  });

  describe('having malformed output', () => {
    it('should find no final verdict in text that matches no format, and never throw', () => {
      for (const text of ['', 'garbage', '\\boxed{CORRECT}', 'Final: CORRECT', 'Final: \\boxed{correct}', 'Step one: \\boxed{CORRECT}', '\u0000\n\n\n', 'Final: \\boxed{CORRECT']) {
        const parsed = parseVerification(text);
        expect(parsed.final, text).toBeUndefined();
      }
      expect(parseVerification('Step 1: x \\boxed{MAYBE}\nnoise').strayLines).toBe(2);
    });

    it('should take final verdicts that agree, and none from ones that disagree', () => {
      expect(parseVerification('Final: \\boxed{CORRECT}\nFinal: \\boxed{CORRECT}')).toMatchObject({ final: true, finals: 2 });
      expect(parseVerification('Final: \\boxed{CORRECT}\nFinal: \\boxed{INCORRECT}')).toMatchObject({ final: undefined, finals: 2 });
    });

    it('should read a step judgment without a reason, and count a final verdict that is not last', () => {
      expect(parseVerification('Step 1: \\boxed{CORRECT}').steps).toEqual([{ number: 1, justification: '', correct: true }]);
      expect(parseVerification('Final: \\boxed{CORRECT}\nStep 1: x \\boxed{CORRECT}')).toMatchObject({ final: true, finalLast: false });
    });
  });
});

describe('formatScore', () => {
  describe('having a verification that meets every criterion', () => {
    it('should score 1', () => {
      expect(formatScore(parseVerification(wellFormed), 3)).toBe(1);
    });
  });

  describe('having one unmet criterion at a time', () => {
    it.each([
      ['too few steps', wellFormed.split('\n').filter((l) => !l.startsWith('Step 3')).join('\n'), 'step_count'],
      ['misnumbered steps', wellFormed.replace('Step 2', 'Step 5'), 'step_numbering'],
      ['a step without a reason', wellFormed.replace('Step 2: ends with "a", so far "ta".', 'Step 2:'), 'justified'],
      ['a stray line', `${wellFormed.replace('Final', 'Looks fine.\nFinal')}`, 'no_stray_text'],
      ['no final verdict', wellFormed.replace('Final: \\boxed{INCORRECT}', ''), 'final_verdict'],
    ])('having %s, should lose exactly %s', (_, text, criterion) => {
      const unmet = Object.entries(formatCriteria(parseVerification(text), 3)).filter(([, met]) => !met).map(([name]) => name);
      expect(unmet).toEqual([criterion]);
      expect(formatScore(parseVerification(text), 3)).toBeCloseTo(1 - FORMAT_PENALTY, 12);
    });
  });

  describe('having text that matches no format', () => {
    it('should score 0 at the default penalty, and less harshly at a smaller one', () => {
      expect(formatScore(parseVerification('I think it is fine.'), 3)).toBe(0);
      expect(formatScore(parseVerification('I think it is fine.'), 3, 0.1)).toBeCloseTo(0.5, 12);
    });
  });
});

describe('goldPathLabels', () => {
  const gold = ['The word "ab" ends with "b", so the letters so far are "b".', 'The word "cd" ends with "d", so the letters so far are "bd".', 'The answer is \\boxed{bd}.'];

  it('should label every step right while the solution follows the gold steps, whitespace aside', () => {
    expect(goldPathLabels(gold, [` ${gold[0]}`, gold[1].replace(' ', '  '), gold[2]])).toEqual([true, true, true]);
  });

  it('should label the first step off the path and every step after it wrong', () => {
    expect(goldPathLabels(gold, [gold[0], 'The word "cd" ends with "c", so the letters so far are "bc".', gold[2]])).toEqual([true, false, false]);
  });

  it('should label steps beyond the gold solution wrong', () => {
    expect(goldPathLabels(gold, [...gold, gold[2]])).toEqual([true, true, true, false]);
  });
});

describe('the verifier prompt', () => {
  it('should hold the problem, the numbered count of steps and the steps, never anything else', () => {
    const prompt = verifierPrompt('Question: Q?\nAnswer:\n', ['one', 'two']);
    expect(prompt).toBe('Verify each step of this solution.\nQuestion: Q?\nAnswer:\none\n\ntwo\n\nThe solution has 2 steps.\nVerification:\n');
  });

  it('should cut a response into its steps at every blank line, empty steps included', () => {
    expect(solutionSteps('a\n\n b \n\nc')).toEqual(['a', 'b', 'c']);
    expect(solutionSteps('a\n\n\n\nc')).toEqual(['a', '', 'c']);
    expect(solutionSteps('')).toEqual(['']);
  });
});
