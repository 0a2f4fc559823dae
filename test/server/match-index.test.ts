import { describe, expect, it } from 'vitest';
import { matchRow, passes, PROMPT_SHOWN, trainingStepOf } from '../../server/match-index.ts';
import type { MatchSummary, WireEvent } from '../../server/wire.ts';

const summary = (matchId: string, outcome: Record<string, number>, seats: Record<string, string> = { senior: 'senior', junior: 'junior' }): MatchSummary => ({
  run: 'run',
  matchId,
  game: 'tandem',
  seats,
  tokenCount: 3,
  finished: true,
  outcome,
});
const at = { seq: 0, run: 'run', matchId: 'step-4/arithmetic/train/0/7/1' };
const events = (prompt: string, text: string, correct: boolean): WireEvent[] => [
  { ...at, type: 'match-start', game: 'tandem', seed: 1, seats: { senior: 'senior', junior: 'junior' }, prompt },
  { ...at, type: 'tokens', turn: 0, position: 0, tokens: [1, 2], authors: ['senior', 'junior'], text },
  { ...at, type: 'verdict', role: 'senior', judge: 'grader', correct, answerPresent: true },
  { ...at, type: 'verdict', role: 'junior', judge: 'senior', correct: !correct, answerPresent: true, step: 0 },
];

describe('match rows', () => {
  describe('having a finished match and the events a spectator got', () => {
    it('should carry its step, its problem shortened, and the grader verdict per role (not a step verdict)', () => {
      const row = matchRow(summary(at.matchId, { senior: 1, junior: 1 }), events(`What is 38 + 45?${' pad'.repeat(100)}`, 'Add 8 and 5: carry the 1.', true));
      expect(row.summary.step).toBe(5);
      expect(row.summary.prompt?.startsWith('What is 38 + 45?')).toBe(true);
      expect(row.summary.prompt).toHaveLength(PROMPT_SHOWN + 1);
      expect(row.summary.verdicts).toEqual({ senior: true });
      expect(row.summary.answers).toEqual({ senior: null });
      expect(row.text).toContain('carry the 1');
    });

    it("should show the judged turn's last boxed answer beside the gold, and a tournament match's round", () => {
      const start = { ...at, matchId: 'r3/arithmetic/train/0/7/1', type: 'match-start', game: 'tandem', seed: 1, seats: { senior: 'ann', junior: 'bob' }, prompt: 'What is 38 + 45?', answer: '83' } as const;
      const row = matchRow(summary(start.matchId, { senior: 1, junior: 1 }, start.seats), [
        start,
        { ...at, type: 'tokens', turn: 0, position: 0, tokens: [1], authors: ['senior'], text: 'So \\boxed{82}, no: ' },
        { ...at, type: 'tokens', turn: 0, position: 1, tokens: [2], authors: ['junior'], text: '\\boxed{83}.' },
        { ...at, type: 'verdict', role: 'senior', judge: 'grader', correct: true, answerPresent: true, turn: 0 },
      ]);
      expect(row.summary).toMatchObject({ round: 3, gold: '83', answers: { senior: '83' }, verdicts: { senior: true } });
      expect(row.summary.step).toBeUndefined();
    });
  });

  describe('when filtered', () => {
    const right = matchRow(summary('step-0/a/0/0', { senior: 1, junior: 1 }), events('What is 38 + 45?', 'carry the one', true));
    const wrong = matchRow(summary('step-1/a/0/0', { senior: 0, junior: 0 }), events('What is 12 + 3?', 'twelve and three', false));

    it('should keep a match only when every part holds', () => {
      expect([right, wrong].filter((row) => passes(row, { verdict: 'wrong', role: 'senior' }))).toEqual([wrong]);
      expect([right, wrong].filter((row) => passes(row, { verdict: 'correct', role: 'junior' }))).toEqual([]);
      expect([right, wrong].filter((row) => passes(row, { verdict: 'unjudged', role: 'junior' }))).toEqual([right, wrong]);
      expect([right, wrong].filter((row) => passes(row, { step: 2 }))).toEqual([wrong]);
      expect([right, wrong].filter((row) => passes(row, { outcome: 'positive' }))).toEqual([right]);
      expect([right, wrong].filter((row) => passes(row, { outcome: 'zero', role: 'nobody' }))).toEqual([]);
      expect([right, wrong].filter((row) => passes(row, { text: 'CARRY 38' }))).toEqual([right]);
      expect([right, wrong].filter((row) => passes(row, { text: 'carry twelve' }))).toEqual([]);
      expect([right, wrong].filter((row) => passes(row, { group: 'step-1/' }))).toEqual([wrong]);
      expect([right, wrong].filter((row) => passes(row, {}))).toEqual([right, wrong]);
    });
  });
});

describe('the seats filter (a payoff cell)', () => {
  it('should keep the matches where the first entrant sat against the second, and in a one-seat game the first entrant\'s', () => {
    const rows = [
      summary('r1/a', { drafter: 1, challenger: 0 }, { drafter: 'ann', challenger: 'bob' }),
      summary('r1/b', { drafter: 0, challenger: 1 }, { drafter: 'bob', challenger: 'ann' }),
      summary('r1/c', { drafter: 1, challenger: 1 }, { drafter: 'ann', challenger: 'ann' }),
      summary('r1/d', { senior: 1 }, { senior: 'ann' }),
      summary('r1/e', { senior: 1 }, { senior: 'bob' }),
    ].map((s) => ({ summary: s, text: '' }));
    expect(rows.filter((row) => passes(row, { seats: ['ann', 'bob'] })).map((row) => row.summary.matchId)).toEqual(['r1/a', 'r1/b', 'r1/d']);
  });
});

describe('trainingStepOf', () => {
  it('should read the step a training match fed from its id, and nothing from other ids', () => {
    expect(trainingStepOf('step-0/arithmetic/train/0/72/3')).toBe(1);
    expect(trainingStepOf('r1/ann-bob/0/1')).toBeUndefined();
  });
});
