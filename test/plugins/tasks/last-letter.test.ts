import { describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { lastLetterTask } from '../../../plugins/tasks/last-letter/last-letter-task.ts';
import { TANGO_SFT_SHAPE, type SplitShape } from '../../../plugins/tasks/last-letter/options.ts';
import type { Split } from '../../../core/tasks/task.ts';

const lengths = (words: string[]) => words.map((word) => word.length);

describe('lastLetterTask', () => {
  const task = lastLetterTask();

  describe('having the same split, index and seed', () => {
    it('should give the same problem, and another seed another problem', () => {
      expect(lastLetterTask().sample('test', 11)).toEqual(task.sample('test', 11));
      expect(task.sample('train', 0, 1).meta.words).not.toEqual(task.sample('train', 0, 2).meta.words);
    });
  });

  describe('having thousands of problems from every split', () => {
    it('should never put one word list in two splits', () => {
      const tiny: SplitShape = { words: [2, 2], letters: [1, 1] };
      const small = lastLetterTask({ train: tiny, test: tiny });
      const [train, validation, test] = (['train', 'validation', 'test'] as const).map((split) => new Set(small.problems(split, 4000).map((p) => p.question)));
      expect(train.size).toBeGreaterThan(150);
      expect(validation.size).toBeGreaterThan(40);
      for (const [a, b] of [[train, test], [train, validation], [validation, test]]) expect([...a].filter((q) => b.has(q))).toEqual([]);
    });

    it('should draw validation problems in the test split\'s shape, since they select checkpoints for it', () => {
      const words = task.problems('validation', 2000).flatMap((p) => p.meta.words);
      expect(Math.max(...task.problems('validation', 2000).map((p) => p.meta.words.length))).toBe(12);
      expect(Math.max(...words.map((w) => w.length))).toBe(12);
    });
  });

  describe.each<[Split, number, number]>([
    ['train', 10, 10],
    ['test', 12, 12],
  ])('having the Tango %s split', (split, maxWords, maxLetters) => {
    const problems = task.problems(split, 3000);

    it(`should hold 2..${maxWords} words of 3..${maxLetters} letters, reaching both ends`, () => {
      const wordCounts = new Set(problems.map((p) => p.meta.words.length));
      const letterCounts = new Set(problems.flatMap((p) => lengths(p.meta.words)));
      expect(Math.min(...wordCounts)).toBe(2);
      expect(Math.max(...wordCounts)).toBe(maxWords);
      expect(Math.min(...letterCounts)).toBe(3);
      expect(Math.max(...letterCounts)).toBe(maxLetters);
    });

    it('should make words of lowercase letters with no three vowels or consonants in a row', () => {
      const words = problems.flatMap((p) => p.meta.words);
      expect(words.filter((word) => !/^[a-z]+$/.test(word) || /[aeiou]{3}|[^aeiou]{3}/.test(word))).toEqual([]);
    });
  });

  describe('having the SFT shape of Tango appendix B.2', () => {
    it('should hold 2..4 words of 3..6 letters', () => {
      const words = lastLetterTask({ train: TANGO_SFT_SHAPE }).problems('train', 300).map((p) => p.meta.words);
      expect(words.every((list) => list.length >= 2 && list.length <= 4)).toBe(true);
      expect(words.flat().every((word) => word.length >= 3 && word.length <= 6)).toBe(true);
    });
  });

  describe('when solving', () => {
    it('should take one step per word, quoting it after the word before it as in the prompt, appending its last letter, then box the concatenation', () => {
      const problem = task.sample('train', 0);
      const { words } = problem.meta;
      expect(problem.question).toBe(`Take the last letters of the words in "${words.join(' ')}" and concatenate them.`);
      expect(problem.prompt).toBe(`Question: ${problem.question} ${problem.instruction}\nAnswer:\n`);
      expect(problem.answer).toBe(words.map((word) => word.at(-1)).join(''));
      expect(problem.steps).toEqual([
        ...words.map((word, i) => `In "${i === 0 ? word : `${words[i - 1]} ${word}`}", the word "${word}" ends with "${word.at(-1)}", so the letters so far are "${problem.answer.slice(0, i + 1)}".`),
        `The answer is \\boxed{${problem.answer}}.`,
      ]);
      expect(problem.solution).toBe(problem.steps.join('\n\n'));
      expect(problem.stepLabels).toEqual(problem.steps.map(() => true));
    });

    it('should quote each pair of neighbouring words exactly as the prompt spells them', () => {
      for (const problem of task.problems('test', 200)) {
        const pairs = problem.steps.slice(0, -1).map((step) => step.match(/^In "([a-z ]+)", /)![1]);
        for (const pair of pairs) expect(problem.question).toContain(pair);
        expect(pairs.slice(1).map((pair) => pair.split(' ')[0])).toEqual(problem.meta.words.slice(0, -1));
      }
    });
  });

  describe('when slipping (the base\'s designed flaw)', () => {
    const problems = task.problems('train', 1000);

    it('should take the letter before the last at about the slip rate, and append faithfully to what was written', () => {
      let slips = 0;
      let words = 0;
      for (const [i, problem] of problems.entries()) {
        const slipped = task.slipped(problem, 0.2, new Rng(i));
        let soFar = '';
        problem.meta.words.forEach((word, k) => {
          const letter = slipped.steps[k].match(/ends with "([a-z])"/)![1];
          expect([word.at(-1), word.at(-2)]).toContain(letter);
          if (letter !== word.at(-1)) slips++;
          if (word.at(-1) !== word.at(-2)) words++;
          soFar += letter;
          expect(slipped.steps[k]).toBe(`In "${k === 0 ? word : `${problem.meta.words[k - 1]} ${word}`}", the word "${word}" ends with "${letter}", so the letters so far are "${soFar}".`);
        });
        expect(slipped.steps.at(-1)).toBe(`The answer is \\boxed{${soFar}}.`);
        expect(slipped.stepLabels).toEqual(slipped.steps.map((step, k) => step === problem.steps[k]));
        expect(slipped.solution).toBe(slipped.steps.join('\n\n'));
      }
      expect(slips / words).toBeGreaterThan(0.17);
      expect(slips / words).toBeLessThan(0.23);
    });

    it('should give the gold solution at rate 0', () => {
      for (const problem of problems.slice(0, 100)) expect(task.slipped(problem, 0, new Rng(1)).solution).toBe(problem.solution);
    });
  });

  describe('when corrupting a solution', () => {
    const rng = new Rng(5);
    const cases = task.problems('train', 1000).map((problem) => ({ problem, corrupted: task.corrupt(problem, rng) }));

    it('should label a step true exactly when it is the gold step, with one mistake and none after fixed', () => {
      for (const { problem, corrupted } of cases) {
        expect(corrupted.stepLabels).toEqual(corrupted.steps.map((step, i) => step === problem.steps[i]));
        const firstWrong = corrupted.stepLabels.indexOf(false);
        expect(firstWrong).toBeGreaterThanOrEqual(0);
        expect(corrupted.stepLabels.slice(firstWrong)).not.toContain(true);
        expect(corrupted.steps).toHaveLength(problem.steps.length);
        expect(corrupted.solution).toBe(corrupted.steps.join('\n\n'));
      }
    });

    it('should end in a boxed answer that is wrong', () => {
      for (const { problem, corrupted } of cases) {
        const boxed = corrupted.steps.at(-1)!.match(/^The answer is \\boxed\{([a-z]*)\}\.$/);
        expect(boxed).not.toBeNull();
        expect(boxed![1]).not.toBe(problem.answer);
      }
    });

    it('should place the mistake at every step, the final answer included', () => {
      const mistakeAt = new Set(cases.filter(({ problem }) => problem.meta.words.length === 3).map(({ corrupted }) => corrupted.stepLabels.indexOf(false)));
      expect([...mistakeAt].sort()).toEqual([0, 1, 2, 3]);
    });

    it('should follow a slipped letter faithfully in the later steps', () => {
      for (const { problem, corrupted } of cases) {
        const firstWrong = corrupted.stepLabels.indexOf(false);
        let soFar = corrupted.steps[firstWrong].match(/so far are "([a-z]*)"/)?.[1] ?? '';
        problem.meta.words.slice(firstWrong + 1).forEach((word, i) => {
          soFar += word.at(-1);
          const before = problem.meta.words[firstWrong + i];
          expect(corrupted.steps[firstWrong + 1 + i]).toBe(`In "${before} ${word}", the word "${word}" ends with "${word.at(-1)}", so the letters so far are "${soFar}".`);
        });
      }
    });

    it('should still find a slip for words of one letter', () => {
      const oneLetter: SplitShape = { words: [2, 3], letters: [1, 1] };
      const tiny = lastLetterTask({ train: oneLetter });
      for (const problem of tiny.problems('train', 200)) {
        const corrupted = tiny.corrupt(problem, rng);
        expect(corrupted.steps.join()).not.toContain('undefined');
        expect(corrupted.stepLabels).toEqual(corrupted.steps.map((step, i) => step === problem.steps[i]));
      }
    });

    it('should be reproducible from the rng state', () => {
      const problem = task.sample('test', 3);
      expect(task.corrupt(problem, new Rng(9))).toEqual(task.corrupt(problem, new Rng(9)));
    });
  });

  describe('when stating what a gold step must say', () => {
    it('should give the word\'s last letter and the letters so far, and the answer on the last step', () => {
      const problem = task.sample('train', 0);
      const { words } = problem.meta;
      expect(task.stepCheck(problem, 0)).toBe(`ends with "${words[0].at(-1)}", so far "${problem.answer[0]}".`);
      expect(task.stepCheck(problem, 1)).toBe(`ends with "${words[1].at(-1)}", so far "${problem.answer.slice(0, 2)}".`);
      expect(task.stepCheck(problem, words.length)).toBe(`the answer is "${problem.answer}".`);
    });
  });

  describe('having a bad shape', () => {
    it('should fail with CONFIG_INVALID naming the field', () => {
      expect(() => lastLetterTask({ test: { words: [5, 2], letters: [3, 12] } })).toThrow(/CONFIG_INVALID.*"test.words"/);
      expect(() => lastLetterTask({ train: { words: [2, 4] } as never })).toThrow(/CONFIG_INVALID.*"train.letters"/);
    });
  });
});
