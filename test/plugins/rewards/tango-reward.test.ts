import { describe, expect, it } from 'vitest';
import type { MatchState } from '../../../core/game/match-state.ts';
import type { Problem } from '../../../core/tasks/task.ts';
import { gradeExact } from '../../../plugins/graders/exact/grade-exact.ts';
import { tangoReward, type TangoRole } from '../../../plugins/rewards/tango-reward.ts';
import { writeVerification } from '../../../plugins/verdicts/step-verdicts.ts';

const steps = ['The word "ab" ends with "b", so the letters so far are "b".', 'The word "cd" ends with "d", so the letters so far are "bd".', 'The answer is \\boxed{bd}.'];
const problem: Problem = { id: 'p', prompt: 'Question: Take the last letters of the words in "ab cd" and concatenate them.\nAnswer:\n', question: 'Take the last letters of the words in "ab cd" and concatenate them.', instruction: '', answer: 'bd', solution: steps.join('\n\n'), steps, stepLabels: [true, true, true], meta: {} };
const reward = tangoReward({ grade: gradeExact, formatWeight: 0.8, formatPenalty: 0.2 });

/** A finished match: the generator's solution with its step ends at the given tokens, then (maybe) the verifier's text. */
const match = (solution: string, stepEnds: number[], verification?: string, p: Problem = problem): MatchState<TangoRole, Problem> => ({
  matchId: 'm',
  seed: 1,
  problem: p,
  finished: true,
  transcript: [
    { turn: 0, role: 'generator', tokens: [], text: solution, stepEnds },
    ...(verification === undefined ? [] : [{ turn: 1, role: 'verifier' as const, tokens: [], text: verification }]),
  ],
});
const judged = (labels: boolean[], final: boolean) => writeVerification(labels.map((correct) => ({ justification: 'checked.', correct })), final);

describe('tangoReward', () => {
  describe('having a right solution judged step by step', () => {
    it('should pay the generator 1 and ±1/K at each step end, the verifier 1 + γ·format, and publish every verdict', async () => {
      const rewards = await reward(match(problem.solution, [10, 20, 27], judged([true, false, true], true)));
      expect(rewards.outcome).toEqual({ generator: 1, verifier: 1.8 });
      expect(rewards.steps).toEqual({ generator: [{ position: 10, value: 1 / 3 }, { position: 20, value: -1 / 3 }, { position: 27, value: 1 / 3 }] });
      expect(rewards.labels).toEqual({ verifier: { solution_correct: 1 } });
      expect(rewards.verdicts).toEqual([
        { role: 'generator', judge: 'grader', turn: 0, answer_present: true, correct: true },
        ...[0, 1, 2].map((step) => ({ role: 'generator', judge: 'grader', turn: 0, step, answer_present: true, correct: true })),
        { role: 'generator', judge: 'verifier', turn: 0, answer_present: true, correct: true },
        ...[true, false, true].map((correct, step) => ({ role: 'generator', judge: 'verifier', turn: 0, step, answer_present: true, correct })),
      ]);
    });
  });

  describe('having a wrong solution the verifier calls right', () => {
    it('should pay the verifier only its format, and label the solution incorrect for its class weights', async () => {
      const wrong = [steps[0], 'The word "cd" ends with "c", so the letters so far are "bc".', 'The answer is \\boxed{bc}.'].join('\n\n');
      const rewards = await reward(match(wrong, [10, 20, 27], judged([true, true, true], true)));
      expect(rewards.outcome).toEqual({ generator: 0, verifier: 0.8 });
      expect(rewards.labels).toEqual({ verifier: { solution_correct: 0 } });
      expect(rewards.verdicts!.filter((v) => v.judge === 'grader' && v.step !== undefined).map((v) => v.correct)).toEqual([true, false, false]);
    });
  });

  describe('having a verifier that judged another number of steps', () => {
    it('should drop the step rewards rather than misalign them, take off the step-count criterion, and count its step verdicts as unreadable', async () => {
      const rewards = await reward(match(problem.solution, [10, 20, 27], judged([true, true], true)));
      expect(rewards.steps).toBeUndefined();
      expect(rewards.outcome.verifier).toBeCloseTo(1 + 0.8 * 0.8, 12);
      expect(rewards.verdicts!.filter((v) => v.judge === 'verifier' && v.step !== undefined)).toEqual([0, 1, 2].map((step) => ({ role: 'generator', judge: 'verifier', turn: 0, step, answer_present: false, correct: false })));
    });
  });

  describe('having a verifier that judged more steps than the solution has', () => {
    it('should drop the step rewards as well, never pay a judgment of a step that was not written', async () => {
      const rewards = await reward(match(problem.solution, [10, 20, 27], judged([true, false, true, true], true)));
      expect(rewards.steps).toBeUndefined();
      // Right final verdict (1) + γ · (1 − the step-count criterion's 0.2) = 1 + 0.8 · 0.8.
      expect(rewards.outcome.verifier).toBeCloseTo(1.64, 12);
      expect(rewards.verdicts!.filter((v) => v.judge === 'verifier' && v.step !== undefined).map((v) => v.answer_present)).toEqual([false, false, false]);
    });
  });

  describe('having step ends that do not match the solution\'s steps (a token holding two blank lines)', () => {
    it('should place no step reward', async () => {
      const rewards = await reward(match(problem.solution, [10, 27], judged([true, true, true], true)));
      expect(rewards.steps).toBeUndefined();
      expect(rewards.outcome.verifier).toBeCloseTo(1.8, 12);
    });
  });

  describe('having a verifier output in no format at all', () => {
    it('should pay it nothing (the format penalty, a missing verdict counted wrong), never throw', async () => {
      for (const text of ['', 'looks right to me', '\\boxed{CORRECT}', 'Final: \\boxed{CORRECT}\nFinal: \\boxed{INCORRECT}']) {
        const rewards = await reward(match(problem.solution, [10, 20, 27], text));
        expect(rewards.outcome.verifier, text).toBeLessThan(1);
        expect(rewards.steps).toBeUndefined();
        expect(rewards.verdicts!.find((v) => v.judge === 'verifier' && v.step === undefined)).toMatchObject({ answer_present: false });
      }
      expect((await reward(match(problem.solution, [10, 20, 27], 'looks right to me'))).outcome.verifier).toBe(0);
    });
  });

  describe('having a task without gold step labels', () => {
    it('should publish the grader\'s verdict on the answer only, and no unreadable step verdicts', async () => {
      const plain: Problem = { ...problem, stepLabels: undefined };
      const rewards = await reward(match(problem.solution, [10, 20, 27], judged([true], true), plain));
      expect(rewards.verdicts!.filter((v) => v.step !== undefined)).toEqual([]);
    });
  });

  describe('having no verifier turn (vanilla GRPO)', () => {
    it('should pay the generator its outcome and the verifier nothing', async () => {
      const rewards = await reward(match(problem.solution, [10, 20, 27]));
      expect(rewards.outcome).toEqual({ generator: 1, verifier: 0 });
      expect(rewards.steps).toBeUndefined();
    });
  });
});
