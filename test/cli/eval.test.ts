import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { LudusError } from '../../core/errors.ts';
import { parseEvalFlags, register } from '../../cli/commands/eval.ts';
import { runLudus } from '../support/cli.ts';
import type { VerifierEvalResult } from '../../lab/eval/verifier-eval.ts';
import type { EvalReport } from '../../lab/eval/report-types.ts';
import type { CascadeModeResult } from '../../cli/cascade-mode.ts';
import { summarizeWorldEval } from '../../cli/world-eval-mode.ts';

describe('ludus eval', () => {
  describe('having a bad flag', () => {
    const BAD_FLAGS = [
      ['--axes', 'capability,vibes'],
      ['--handoff', 'sometimes'],
      ['--samples', '0'],
      ['--bootstrap', '1'],
      ['--handoff-p', '1.5'],
      ['--top-p', 'x'],
      ['--split', 'dev'],
      ['--extract', 'boxed,guess'],
      ['--chat-template', 'maybe'],
      ['--displaced-ranking', 'loudest'],
    ] as const;

    it('should refuse each with INPUT_INVALID naming the flag, as the command parses it', async () => {
      // The command's own option parsing (defaults included), in this process; its action is the flags' check.
      for (const [flag, value] of BAD_FLAGS) {
        const program = new Command().exitOverride();
        register(program);
        let parsed: Record<string, unknown> | undefined;
        program.commands.find((command) => command.name() === 'eval')!.action((opts: Record<string, unknown>) => void (parsed = opts));
        await program.parseAsync(['eval', '--model', '/nonexistent', '--task', 'arithmetic', flag, value], { from: 'user' });
        const refusal = (() => {
          try {
            parseEvalFlags(parsed!);
          } catch (error) {
            return error;
          }
        })();
        expect(LudusError.is(refusal, 'INPUT_INVALID'), `${flag} ${value}`).toBe(true);
        expect((refusal as LudusError).message).toContain(flag.replace(/^--/, ''));
      }
    });

    it('should exit 2 with INPUT_INVALID naming it, before loading a model', async () => {
      const result = await runLudus(['eval', '--model', '/nonexistent', '--task', 'arithmetic', '--axes', 'capability,vibes']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('[INPUT_INVALID] --axes: unknown "vibes"');
    });
  });

  describe('having --game (a world game)', () => {
    it("should sample the model's moves at SPIRAL's T 0.6, top-p 0.95 when the command names no sampling, and say so", async () => {
      const result = await runLudus(['eval', '--game', 'tictactoe', '--opponents', 'random', '--matches', '2', '--threads', '1', '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect((JSON.parse(result.stdout) as { results: { sampling: unknown }[] }).results[0].sampling).toEqual({ temperature: 0.6, topP: 0.95 });
      const rate = { rate: 0.5, se: 0.1 };
      const opponents = [{ opponent: 'random', matches: 2, win: rate, draw: rate, loss: rate, drawOrWin: rate, forfeit: rate, payoff: rate, labels: {}, perMatch: ['win' as const, 'loss' as const] }];
      const text = summarizeWorldEval('tictactoe', [{ model: 'm', sampling: { temperature: 1, topP: 1 }, opponents }]);
      expect(text).toContain("m's moves sampled at T 1, top-p 1 (not SPIRAL's evaluation setting, T 0.6, top-p 0.95)");
      expect(summarizeWorldEval('tictactoe', [{ model: 'm', sampling: { temperature: 0.6, topP: 0.95 }, opponents }])).toContain("(SPIRAL's evaluation setting)");
    }, 120_000);
  });

  describe('having --challenger (cascade mode)', () => {
    it('should refuse a bad --proposals or --challenge-layout with INPUT_INVALID naming it, before loading a model', async () => {
      for (const [flag, value] of [
        ['--proposals', '0'],
        ['--challenge-layout', 'sideways'],
      ]) {
        const result = await runLudus(['eval', '--model', '/nonexistent', '--challenger', '/nonexistent', '--task', 'arithmetic', flag, value]);
        expect(result.code, `${flag} ${value}`).toBe(2);
        expect(result.stderr).toContain('[INPUT_INVALID]');
        expect(result.stderr).toContain(flag.replace(/^--/, ''));
      }
    });

    it('should print the cascade at the per-generation cap and the single model compared at the same cap, paired', async () => {
      const result = await runLudus(['eval', '--model', 'default', '--challenger', 'default', '--task', 'arithmetic', '--problems', '3', '--samples', '2', '--max-new-tokens', '40', '--compare', 'default', '--bootstrap', '50', '--threads', '1', '--json'], { timeoutMs: 300_000 });
      expect(result.stderr).not.toMatch(/\[[A-Z_]+\]/);
      expect(result.code).toBe(0);
      const [{ cascade, single }] = (JSON.parse(result.stdout) as { cascade: CascadeModeResult[] }).cascade;
      expect([cascade.generations, cascade.turn_tokens, cascade.problems, cascade.samples]).toEqual([2, 40, 3, 2]);
      expect(cascade.trace_tokens.challenge.value).toBeLessThanOrEqual(40);
      expect(single!.tests.map((t) => [t.metric, t.n])).toEqual([['pass@1', 3], ['pass@1 vs pass@2', 3]]);
    }, 300_000);

    it("should judge the same solutions with the --compare judge, Tango's shipped base for 'default', and test the pair", async () => {
      const result = await runLudus(['eval', '--model', 'default', '--task', 'arithmetic', '--axes', 'verifier', '--problems', '4', '--samples', '1', '--compare', 'default', '--bootstrap', '50', '--threads', '1', '--json'], { timeoutMs: 300_000 });
      expect(result.stderr).not.toMatch(/\[[A-Z_]+\]/);
      expect(result.code).toBe(0);
      const out = JSON.parse(result.stdout) as { verifier: Record<string, VerifierEvalResult>; compare: { model: string; verifier: Record<string, VerifierEvalResult> }; tests: { metric: string; family: number; p_holm: number; mean_diff: number }[] };
      const [mine, theirs] = [out.verifier.arithmetic, out.compare.verifier.arithmetic];
      expect(mine.policies.verifier).toMatch(/models\/arithmetic-judge$/);
      expect([mine.judge_temperature, mine.temperature]).toEqual([0, 1]);
      // One judge, one generator, the same seeds: the very same verdicts, so nothing differs and nothing is significant.
      expect(theirs.per_problem).toEqual(mine.per_problem);
      expect(out.tests.map((t) => [t.metric, t.family, t.mean_diff, t.p_holm])).toEqual([
        ['outcome accuracy', 2, 0, 1],
        ['step accuracy', 2, 0, 1],
      ]);
    }, 300_000);
  });

  describe('having the shipped base as model and junior and every axis', () => {
    it('should print one EvalReport and write it with the markdown report and plots', async () => {
      const dir = join(await mkdtemp(join(tmpdir(), 'ludus-eval-')), 'report');
      const result = await runLudus(
        ['eval', '--model', 'default', '--task', 'arithmetic', '--problems', '4', '--samples', '2', '--axes', 'capability,handoff,drift,legibility', '--handoff', 'alternate,bernoulli,word', '--bootstrap', '100', '--threads', '1', '--json', '--report', dir],
        { timeoutMs: 300_000 },
      );
      expect(result.stderr).not.toMatch(/\[[A-Z_]+\]/);
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as EvalReport;
      expect(report.model).toBe('default:arithmetic');
      expect(report.junior).toBe('default:arithmetic');
      expect(Object.keys(report.capability!.per_benchmark.arithmetic.pass_at_k)).toEqual(['1', '2']);
      expect(report.handoff!.map((h) => h.variant)).toEqual(['alternate', 'bernoulli', 'word']);
      expect(report.config.chat_template).toBe('on');
      expect(report.config.displaced_ranking).toBe('signed');
      // Word handoff redraws at every word start: many more handoffs than at step ends.
      expect(report.handoff![2].per_benchmark.arithmetic.handoffs_per_rollout).toBeGreaterThan(report.handoff![0].per_benchmark.arithmetic.handoffs_per_rollout);
      // The shipped base writes "\n\n" between steps, so the team really hands off.
      expect(report.handoff![0].per_benchmark.arithmetic.handoffs_per_rollout).toBeGreaterThan(0);
      // Model and junior are the same network: the junior reads the model's text with full overlap.
      expect(report.legibility!.macro.overlap.value).toBeCloseTo(1, 4);
      expect(report.per_problem).toHaveLength(4);
      expect(JSON.parse(readFileSync(join(dir, 'eval-report.json'), 'utf8'))).toEqual(report);
      expect(existsSync(join(dir, 'report.md'))).toBe(true);
    }, 300_000);
  });

  describe('having a generated task and a JSONL file together', () => {
    it('should evaluate both and add a macro average of the two', async () => {
      const file = join(await mkdtemp(join(tmpdir(), 'ludus-eval-')), 'sums.jsonl');
      const rows = [['What is 12 plus 30?', '42'], ['What is 7 plus 5?', '12'], ['What is 40 minus 8?', '32']];
      await writeFile(file, rows.map(([problem, answer]) => JSON.stringify({ problem, answer })).join('\n'));
      const result = await runLudus(['eval', '--model', 'default', '--task', `arithmetic,${file}`, '--problems', '3', '--samples', '2', '--bootstrap', '100', '--threads', '1', '--json'], { timeoutMs: 300_000 });
      expect(result.stderr).not.toMatch(/\[[A-Z_]+\]/);
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as EvalReport;
      expect(report.benchmarks.map((b) => [b.name, b.problems])).toEqual([['arithmetic', 3], [file, 3]]);
      const cap = report.capability!;
      const mean = (cap.per_benchmark.arithmetic.pass_at_k['1'].value + cap.per_benchmark[file].pass_at_k['1'].value) / 2;
      expect(cap.macro.pass_at_k['1'].value).toBeCloseTo(mean, 12);
    }, 300_000);
  });

  describe('having --compare with a saved eval-report.json', () => {
    it('should pair the two evaluations problem by problem and print one-sided t-tests', async () => {
      const dir = join(await mkdtemp(join(tmpdir(), 'ludus-eval-')), 'first');
      const common = ['eval', '--model', 'default', '--task', 'arithmetic', '--problems', '6', '--samples', '2', '--bootstrap', '100', '--threads', '1'];
      const first = await runLudus([...common, '--report', dir], { timeoutMs: 300_000 });
      expect(first.code).toBe(0);
      // The text summary gives the answer-present rate with its bootstrap SE.
      expect(first.stdout).toMatch(/answer present \d+\.\d ± \d+\.\d%/);
      const second = await runLudus([...common, '--seed', '1', '--compare', join(dir, 'eval-report.json'), '--json'], { timeoutMs: 300_000 });
      expect(second.stderr).not.toMatch(/\[[A-Z_]+\]/);
      expect(second.code).toBe(0);
      const report = JSON.parse(second.stdout) as EvalReport;
      expect(report.significance!.other).toBe('default:arithmetic');
      expect(report.significance!.tests.map((t) => t.metric)).toEqual(['capability pass@1', 'capability pass@2']);
      for (const t of report.significance!.tests) {
        expect(t.n).toBe(6);
        expect(t.df).toBe(5);
        expect(t.p).toBeGreaterThanOrEqual(0);
        expect(t.p).toBeLessThanOrEqual(1);
      }
      // In text, both models' scores, each labelled solo with its split, then the paired tests.
      const text = await runLudus([...common, '--seed', '1', '--compare', join(dir, 'eval-report.json')], { timeoutMs: 300_000 });
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toMatch(/^default:arithmetic on arithmetic \(test, 6 problems\).*\ncapability, solo .*\n {2}arithmetic: pass@1 \d\.\d{4} ± /);
      expect(text.stdout).toMatch(/\ncompared with:\ndefault:arithmetic on arithmetic \(test, 6 problems\).*\ncapability, solo .*\n {2}arithmetic: pass@1 \d\.\d{4} ± /);
      expect(text.stdout).toMatch(/\npaired one-sided t-tests, default:arithmetic against default:arithmetic:\n {2}capability pass@1 /);
    }, 300_000);
  });
});
