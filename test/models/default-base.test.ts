import { describe, expect, it } from 'vitest';
import { runLudus } from '../support/cli.ts';

/** The shipped arithmetic base must leave room for RL: it solves some held-out problems, not all. */
describe('the shipped default arithmetic base', () => {
  describe('having 100 held-out problems and 8 samples each', () => {
    it('should have pass@1 between 0.2 and 0.6 and a clearly higher pass@8', async () => {
      const result = await runLudus(['eval', '--model', 'default', '--task', 'arithmetic', '--split', 'test', '--problems', '100', '--samples', '8', '--threads', '2', '--json'], { timeoutMs: 600_000 });
      expect(result.stderr).not.toMatch(/\[[A-Z_]+\]/);
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as { pass_at_k: Record<string, number>; n_problems: number; samples: number };
      expect(report).toMatchObject({ n_problems: 100, samples: 8 });
      expect(report.pass_at_k['1']).toBeGreaterThanOrEqual(0.2);
      expect(report.pass_at_k['1']).toBeLessThanOrEqual(0.6);
      expect(report.pass_at_k['8']).toBeGreaterThan(report.pass_at_k['1'] + 0.15);
    }, 600_000);
  });
});
