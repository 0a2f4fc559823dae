import { describe, expect, it } from 'vitest';
import { benchGrader, quantile } from '../../../../plugins/graders/bench/bench-grader.ts';
import { graderBenchLines } from '../../../../plugins/graders/bench/grader-lines.ts';

describe('graderBenchLines', () => {
  it('should draw the same lines from the same seed, and other lines from another', () => {
    expect(graderBenchLines(50, 1)).toEqual(graderBenchLines(50, 1));
    expect(graderBenchLines(50, 1)).not.toEqual(graderBenchLines(50, 2));
  });

  it('should put the megabyte lines first, as many as asked', () => {
    const lines = graderBenchLines(10, 1, 2);
    expect(lines.map((l) => l.family).slice(0, 3)).toEqual(['megabyte', 'megabyte', expect.not.stringMatching(/^megabyte$/)]);
    expect(lines[0].pred.length).toBeGreaterThan(1_000_000);
  });
});

describe('quantile', () => {
  it('should take the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(quantile(values, 0.99)).toBe(99);
    expect(quantile(values, 0.5)).toBe(50);
    expect(quantile([3], 0.99)).toBe(3);
    expect(quantile([], 0.5)).toBe(0);
  });
});

describe('benchGrader', () => {
  it('should count every line once, by family, and the verdicts', () => {
    const lines = [
      { family: 'answer', gold: '5', pred: '\\boxed{5}' },
      { family: 'answer', gold: '5', pred: 'The answer is 4.' },
      { family: 'prose', gold: '5', pred: 'no idea at all, sorry' },
    ];
    const report = benchGrader(lines);
    expect(report).toMatchObject({ lines: 3, errors: 0, answer_present: 2, correct: 1 });
    expect(Object.fromEntries(Object.entries(report.families).map(([family, f]) => [family, f.lines]))).toEqual({ answer: 2, prose: 1 });
  });
});
