import { describe, expect, it } from 'vitest';
import { advantageEstimators } from '../../core/advantages/estimators.ts';
import type { MatchState } from '../../core/game/match-state.ts';
import type { TurnRecord } from '../../core/protocols/turn-record.ts';
import type { Problem } from '../../core/tasks/task.ts';
import { agonGame, type AgonRole } from '../../games/agon/agon.ts';
import { WITHHELD, withheldSummary } from '../../plugins/protocols/draft-challenge.ts';
import { gradeMath } from '../../plugins/graders/math/grade-math.ts';
import { Rng } from '../../core/rng.ts';

const grade = (gold: string, pred: string) => {
  const g = gradeMath(gold, pred);
  return { answer_present: g.answer_present, correct: g.correct };
};
const problem: Problem = { id: 'p', prompt: 'Question: What is 80 minus 28?\nAnswer:\n', answer: '52' } as Problem;
const turn = (index: number, role: AgonRole, text: string): TurnRecord<AgonRole> => ({ turn: index, role, tokens: [1, 2, 3], text, finish: 'stop', stepEnds: [2] });
const match = (draft: string, challenge?: string): MatchState<AgonRole, Problem> => ({
  matchId: 'm',
  seed: 1,
  problem,
  transcript: challenge === undefined ? [turn(0, 'drafter', draft)] : [turn(0, 'drafter', draft), turn(1, 'challenger', challenge)],
  finished: challenge !== undefined,
});
const boxed = (answer: string) => `Ones: 10 minus 8 is 2.\n\nThe answer is \\boxed{${answer}}.`;

/** The challenger's prompt as the match engine renders it: the game's view for the challenger, then the turn's template. */
function challengerPrompt(game: ReturnType<typeof agonGame>, draft: string): string {
  const seen = game.view(match(draft), 'challenger').transcript;
  const protocol = game.protocol as Extract<typeof game.protocol, { family: 'sequential' }>;
  return protocol.turns[1].template(seen, problem);
}

describe('agon', () => {
  describe('the competitive reward (§4)', () => {
    const game = agonGame({}, grade);
    it('pays the challenger a correctness weight of 3 when the paired draft is wrong (the conversion bonus), 2 when it is right, plus format', async () => {
      expect((await game.rewards(match(boxed('51'), boxed('52')))).outcome).toEqual({ drafter: 1, challenger: 4 });
      expect((await game.rewards(match(boxed('52'), boxed('52')))).outcome).toEqual({ drafter: 3, challenger: 3 });
      expect((await game.rewards(match(boxed('52'), boxed('50')))).outcome).toEqual({ drafter: 3, challenger: 1 });
      expect((await game.rewards(match('no box', 'no box either'))).outcome).toEqual({ drafter: 0, challenger: 0 });
      expect((await game.rewards(match(boxed('51'), boxed('52')))).labels).toEqual({ challenger: { draft_correct: 0, converted: 1 } });
    });
    it('pays no bonus in the cooperative-exchange ablation (conversionBonus 0)', async () => {
      const cooperative = agonGame({ conversionBonus: 0 }, grade);
      expect((await cooperative.rewards(match(boxed('51'), boxed('52')))).outcome).toEqual({ drafter: 1, challenger: 3 });
    });
  });

  describe('several proposals (the untrained Mixture-of-Agents baseline)', () => {
    const game = agonGame({ proposals: 2 }, grade);
    const moa = (first: string, second: string, answer: string): MatchState<AgonRole, Problem> => ({
      matchId: 'm',
      seed: 1,
      problem,
      transcript: [turn(0, 'drafter', first), turn(1, 'drafter', second), turn(2, 'challenger', answer)],
      finished: true,
    });
    it('drafts twice before the last pass, which reads both summaries with their answers withheld', () => {
      const protocol = game.protocol as Extract<typeof game.protocol, { family: 'sequential' }>;
      expect(protocol.turns.map((t) => t.role)).toEqual(['drafter', 'drafter', 'challenger']);
      const state = moa('Tens: 8 minus 2 is 6.\n\nThe answer is \\boxed{51}.', boxed('52'), '');
      const seen = game.view({ ...state, transcript: state.transcript.slice(0, 2), finished: false }, 'challenger').transcript;
      const prompt = protocol.turns[2].template(seen, problem);
      expect(prompt).toBe(`Proposal 1, its final answer withheld:\nTens: 8 minus 2 is 6.\n\nA rival's draft, its final answer withheld:\nOnes: 10 minus 8 is 2.\n\n${problem.prompt}`);
      expect(prompt).not.toContain('51');
      expect(prompt).not.toContain('52');
    });
    it('pays the drafter the mean over its drafts and the conversion bonus only when no draft was right', async () => {
      expect((await game.rewards(moa(boxed('51'), boxed('52'), boxed('52')))).outcome).toEqual({ drafter: 2, challenger: 3 });
      expect((await game.rewards(moa(boxed('51'), boxed('50'), boxed('52')))).outcome).toEqual({ drafter: 1, challenger: 4 });
      expect((await game.rewards(moa(boxed('51'), boxed('50'), boxed('52')))).verdicts?.map((v) => [v.role, v.turn, v.correct])).toEqual([
        ['drafter', 0, false],
        ['drafter', 1, false],
        ['challenger', 2, true],
      ]);
    });
  });

  describe('the challenger\'s layout and base by default', () => {
    it('reads the summary as context before the plain prompt (the paper\'s chat models), continue only when asked, starting from the judging base', () => {
      const draft = boxed('52');
      expect(challengerPrompt(agonGame({}, grade), draft)).toBe(`A rival's draft, its final answer withheld:\nOnes: 10 minus 8 is 2.\n\n${problem.prompt}`);
      expect(challengerPrompt(agonGame({ challengeLayout: 'continue' }, grade), draft)).toBe(`${problem.prompt}Ones: 10 minus 8 is 2.\n\n`);
      expect(agonGame({}, grade).defaultModel).toBe('arithmetic-judge');
    });
  });

  describe('the summary the challenger reads (§4: the final answer withheld)', () => {
    it('keeps the post-reasoning text, cuts the final-answer step and masks every standalone mention of the answer', () => {
      expect(withheldSummary('Ones: 9 minus 4 is 5. Write 5.\n\nThe answer is \\boxed{5}.', { maskMentions: true })).toEqual({ summary: `Ones: 9 minus 4 is ${WITHHELD}. Write ${WITHHELD}.`, answer: '5' });
      expect(withheldSummary('<think>try 12, or 13</think>7 and 5 make 12, not 125 or 1.2.\n\nSo \\boxed{12}', { maskMentions: true })).toEqual({ summary: `7 and 5 make ${WITHHELD}, not 125 or 1.2.`, answer: '12' });
      expect(withheldSummary('First \\boxed{3} then 4.\n\nFinally \\boxed{4}', { maskMentions: false })).toEqual({ summary: `First \\boxed{${WITHHELD}} then 4.`, answer: '4' });
      expect(withheldSummary('no answer at all 3', { maskMentions: true })).toEqual({ summary: 'no answer at all 3', answer: null });
    });

    it('lets no path carry the draft\'s final answer into the challenger\'s context (random drafts, through the view and the template)', () => {
      const rng = new Rng(11);
      for (let i = 0; i < 300; i++) {
        const game = agonGame({ challengeLayout: i % 2 === 0 ? 'continue' : 'context' }, grade);
        const answer = String(rng.int(1000));
        const other = String(rng.int(1000));
        const steps = [`Ones: ${other} minus ${answer} is ${answer}.`, `Tens: ${answer}${answer} and ${answer}.${other}, write ${answer}.`, `The answer is \\boxed{${answer}}.`];
        const draft = `<think>I guess ${answer}</think>${steps.join('\n\n')}`;
        const prompt = challengerPrompt(game, draft);
        expect(prompt).toContain(problem.prompt);
        const context = prompt.replace(problem.prompt, '');
        expect(context.match(new RegExp(`(?<![0-9.])${answer}(?![0-9]|\\.[0-9])`, 'g')), `${draft}\n→ ${context}`).toBeNull();
        expect(context).toContain(WITHHELD);
        expect(prompt).not.toContain('\\boxed{');
        expect(prompt).not.toContain('I guess');
      }
      const seen = agonGame({}, grade).view(match(boxed('52')), 'challenger').transcript[0];
      expect(seen.tokens).toEqual([]);
      expect(seen.secret).toBeUndefined();
      expect(seen.stepEnds).toBeUndefined();
    });

    it('shows spectators the whole draft with the summary and the withheld answer as its secret', () => {
      const game = agonGame({}, grade);
      const seen = game.view(match(boxed('52'), boxed('52')), null).transcript[0];
      expect(seen.text).toBe(boxed('52'));
      expect(seen.secret).toEqual({ summary: `Ones: 10 minus 8 is 2.`, withheld: '52' });
    });
  });

  describe('zero-variance groups', () => {
    it('are dropped for both roles, not zeroed', () => {
      const game = agonGame({}, grade);
      const rollout = (outcome: number) => ({ outcome, tokens: 4, steps: [], labels: {} });
      for (const role of ['drafter', 'challenger'] as const) {
        const estimator = game.advantages[role]!(advantageEstimators.grpo);
        const { result } = estimator.estimate([[rollout(3), rollout(3)], [rollout(1), rollout(3)]], { role, step: 0, totalSteps: 1 }, estimator.initialState());
        expect(result.dropped).toEqual([[true, true], [false, false]]);
      }
    });
  });

  describe('the rotation', () => {
    it('swaps drafter and challenger every step and trains both', () => {
      const { rotation } = agonGame({}, grade);
      expect([0, 1, 2, 3].map((s) => rotation.at(s).seats)).toEqual([
        { drafter: 'A', challenger: 'B' },
        { drafter: 'B', challenger: 'A' },
        { drafter: 'A', challenger: 'B' },
        { drafter: 'B', challenger: 'A' },
      ]);
      for (const s of [0, 1]) expect(rotation.at(s).trains).toEqual(['A', 'B']);
    });
    it('keeps the roles in the fixed-roles ablation, and one policy in both seats for self-refinement', () => {
      const fixed = agonGame({ fixedRoles: true }, grade);
      expect([0, 1, 2].map((s) => fixed.rotation.at(s).seats)).toEqual(Array(3).fill({ drafter: 'A', challenger: 'B' }));
      const self = agonGame({ pairing: 'self' }, grade);
      expect(self.policies).toEqual(['A']);
      expect(self.rotation.at(1)).toEqual({ seats: { drafter: 'A', challenger: 'A' }, trains: ['A'] });
    });
  });

  it('binds its policies to rank-16 adapters over one base by default (§4), full copies with adapters: false', () => {
    expect(agonGame({}, grade).policyDefaults).toEqual({ A: { adapter: { r: 16, initStdB: 0.02 } }, B: { adapter: { r: 16, initStdB: 0.02 } } });
    expect(agonGame({ adapters: false }, grade).policyDefaults).toEqual({});
  });
});
