import { describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { isMixed, mixedExample, verificationExample } from '../../../lab/pretrain/sft-examples.ts';
import { PRETRAIN_PRESETS, PretrainConfigSchema } from '../../../lab/pretrain/pretrain-config.ts';
import { challengePrompt } from '../../../games/agon/agon.ts';
import type { Problem } from '../../../core/tasks/task.ts';
import { arithmeticTask } from '../../../plugins/tasks/arithmetic/arithmetic-task.ts';
import { lastLetterTask } from '../../../plugins/tasks/last-letter/last-letter-task.ts';
import { parseVerification } from '../../../plugins/verdicts/step-verdicts.ts';
import { verifierPrompt } from '../../../plugins/verdicts/verifier-prompt.ts';

const letters = lastLetterTask();
const sources = [
  { task: letters, share: 0.75 },
  { task: arithmeticTask(), share: 0.25 },
];

describe('verificationExample', () => {
  describe('having no label noise', () => {
    it('should judge a gold solution right at every step and a corrupted one as its labels say, with the task\'s checks as reasons', () => {
      for (let i = 0; i < 200; i++) {
        const problem = letters.sample('train', i);
        const example = verificationExample(letters, problem, new Rng(i), { corrupted: 0.5, flip: 0 });
        const parsed = parseVerification(example.completion);
        const steps = parsed.steps.map((s) => s.correct);
        expect(parsed.steps.map((s) => s.justification)).toEqual(problem.steps.map((_, k) => letters.stepCheck(problem, k)));
        expect(parsed.final).toBe(steps.every(Boolean));
        expect(example.prompt).toContain(`The solution has ${problem.steps.length} steps.`);
        if (steps.every(Boolean)) expect(example.prompt).toBe(verifierPrompt(problem.prompt, problem.steps));
      }
    });
  });

  describe('having labels flipped with probability 0.25', () => {
    it('should get about a quarter of the verdicts wrong, and keep the format', () => {
      let wrong = 0;
      let total = 0;
      for (let i = 0; i < 400; i++) {
        const problem = letters.sample('train', i);
        const clean = verificationExample(letters, problem, new Rng(i), { corrupted: 0.5, flip: 0 });
        const noisy = verificationExample(letters, problem, new Rng(i), { corrupted: 0.5, flip: 0.25 });
        const a = parseVerification(clean.completion);
        const b = parseVerification(noisy.completion);
        expect(b.steps).toHaveLength(a.steps.length);
        expect(b.final).toBeDefined();
        // The same rng draws the same solution; the flips come after.
        expect(noisy.prompt).toBe(clean.prompt);
        a.steps.forEach((s, k) => {
          total++;
          if (s.correct !== b.steps[k].correct) wrong++;
        });
      }
      expect(wrong / total).toBeGreaterThan(0.2);
      expect(wrong / total).toBeLessThan(0.3);
    });
  });
});

describe('mixedExample', () => {
  const verification = { share: 0.4, corrupted: 0.5, flip: 0.25 };

  it('should be a pure function of (seed, position)', () => {
    expect(mixedExample(sources, verification, 3, 17)).toEqual(mixedExample(sources, verification, 3, 17));
  });

  it('should draw tasks and verifications at their shares', () => {
    const examples = Array.from({ length: 2000 }, (_, i) => mixedExample(sources, verification, 0, i));
    const arithmetic = examples.filter((e) => e.prompt.includes('What is')).length / examples.length;
    const verifications = examples.filter((e) => e.prompt.startsWith('Verify')).length / examples.length;
    expect(arithmetic).toBeGreaterThan(0.2);
    expect(arithmetic).toBeLessThan(0.3);
    expect(verifications).toBeGreaterThan(0.35);
    expect(verifications).toBeLessThan(0.45);
    const solved = examples.find((e) => !e.prompt.startsWith('Verify'))!;
    expect(solved.completion).toContain('\\boxed{');
  });

  it('should slip only solutions, and only at the slip rate, the same slips at the same position', () => {
    const gold = Array.from({ length: 600 }, (_, i) => mixedExample(sources, verification, 0, i));
    const slipped = Array.from({ length: 600 }, (_, i) => mixedExample(sources, verification, 0, i, 0.3));
    expect(slipped.map((e) => e.prompt)).toEqual(gold.map((e) => e.prompt));
    const changed = slipped.filter((e, i) => e.completion !== gold[i].completion);
    expect(changed.length).toBeGreaterThan(100);
    expect(changed.every((e) => !e.prompt.startsWith('Verify'))).toBe(true);
    expect(mixedExample(sources, verification, 0, 5, 0.3)).toEqual(slipped[5]);
  });

  it('should mix only when the config asks for it, and refuse shares that leave the main task nothing', () => {
    expect(isMixed(PretrainConfigSchema.parse({ task: 'last-letter' }))).toBe(false);
    expect(isMixed(PretrainConfigSchema.parse({ task: 'last-letter', verification: { share: 0.4 } }))).toBe(true);
    expect(() => PretrainConfigSchema.parse({ task: 'last-letter', alsoTasks: [{ task: 'arithmetic', share: 0.6 }, { task: 'arithmetic', share: 0.5 }] })).toThrow(/alsoTasks/);
  });
});

describe('the arithmetic-judge mix (slipped verifications with a miss rate, Agon challenges)', () => {
  const arithmetic = arithmeticTask();
  const config = PretrainConfigSchema.parse(PRETRAIN_PRESETS['arithmetic-judge']);
  const examples = Array.from({ length: 1500 }, (_, i) => mixedExample([{ task: arithmetic, share: 1 }], config.verification, 0, i, config.slipRate, config.challenge));

  it('should draw verifications, challenges and solutions at their shares', () => {
    const share = (start: string) => examples.filter((e) => e.prompt.startsWith(start)).length / examples.length;
    expect(share('Verify')).toBeCloseTo(config.verification!.share, 1);
    expect(share("A rival's draft")).toBeCloseTo(config.challenge!.share, 1);
    expect(isMixed(config)).toBe(true);
  });

  it('should verify the base\'s own slipped walks in the verifier\'s format, the final verdict wrong exactly when a step is', () => {
    for (const example of examples.filter((e) => e.prompt.startsWith('Verify'))) {
      const parsed = parseVerification(example.completion);
      expect(parsed.strayLines).toBe(0);
      expect(example.prompt).toContain(`The solution has ${parsed.steps.length} steps.`);
      expect(parsed.final).toBe(parsed.steps.every((s) => s.correct));
    }
  });

  it('should put a draft\'s withheld summary before the plain prompt (the context layout) and answer it afresh', () => {
    for (const example of examples.filter((e) => e.prompt.startsWith("A rival's draft"))) {
      const problem = example.prompt.slice(example.prompt.indexOf('Question: '));
      expect(example.prompt).toBe(challengePrompt(example.prompt.slice("A rival's draft, its final answer withheld:\n".length, example.prompt.indexOf('\n\nQuestion: ')), { prompt: problem } as Problem, 'context'));
      expect(example.prompt).not.toMatch(/\\boxed\{\d/);
      expect(example.completion).toMatch(/The answer is \\boxed\{\d+\}\.$/);
    }
  });

  it('should refuse verification and challenge shares that leave solutions nothing', () => {
    expect(() => PretrainConfigSchema.parse({ task: 'arithmetic', verification: { share: 0.6 }, challenge: { share: 0.5 } })).toThrow(/challenge/);
  });
});

describe('mixedExample over the world preset', () => {
  it("should reach every Kuhn Poker history and every TicTacToe opening, the task's draws independent of the draw that chose the task", async () => {
    const { worldMovesTask } = await import('../../../core/world/world-moves-task.ts');
    const { kuhnPokerWorld } = await import('../../../games/kuhn-poker.ts');
    const { ticTacToeWorld } = await import('../../../games/tictactoe.ts');
    const { negotiationWorld } = await import('../../../games/negotiation.ts');
    const worlds: Record<string, unknown> = { 'kuhn-poker': kuhnPokerWorld, tictactoe: ticTacToeWorld, negotiation: negotiationWorld };
    const { moveFormatsTask } = await import('../../../core/world/move-formats.ts');
    const preset = PretrainConfigSchema.parse(PRETRAIN_PRESETS.world);
    const world = (task: string, options: Record<string, unknown>) =>
      task === 'world-formats' ? moveFormatsTask(preset.seed, options) : worldMovesTask(worlds[options.game as string] as never, preset.seed, { legalLine: options.legalLine === true });
    const mix = [
      { task: world(preset.task, preset.taskOptions), share: 1 - preset.alsoTasks.reduce((sum, a) => sum + a.share, 0) },
      ...preset.alsoTasks.map((a) => ({ task: world(a.task, a.taskOptions), share: a.share })),
    ];
    const histories = new Map<string, number>();
    const openings = new Set<string>();
    let kuhn = 0;
    for (let position = 0; position < 4000; position++) {
      const { prompt } = mixedExample(mix, undefined, preset.seed, position);
      if (prompt.startsWith('Kuhn')) {
        kuhn++;
        const history = /\n(So far: [^\n]*|No bets yet\.)\n/.exec(prompt)![1];
        histories.set(history, (histories.get(history) ?? 0) + 1);
      }
      const board = /\n((?:[1-9XO] [1-9XO] [1-9XO]\n?){3})/.exec(prompt)?.[1].replace(/\s/g, '');
      if (board && [...board].filter((c) => c === 'X').length === 1 && ![...board].includes('O')) openings.add(board);
    }
    // A random legal game reaches a check to the second player a quarter of the time, and a bet after it an eighth.
    expect([...histories.keys()].sort()).toEqual(['No bets yet.', 'So far: first bets.', 'So far: first checks, second bets.', 'So far: first checks.']);
    for (const count of histories.values()) expect(count / kuhn).toBeGreaterThan(0.05);
    expect(openings.size).toBe(9);
  });
});
