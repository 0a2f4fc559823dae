import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runLudus } from '../support/cli.ts';

interface GradedPair {
  gold: string;
  pred: string;
  answer_present: boolean;
  correct: boolean;
}

const FIXTURE = new URL('../fixtures/grader/math-pairs.jsonl', import.meta.url);
const VERIFIER_FIXTURE = new URL('../fixtures/grader/verifier-pairs.jsonl', import.meta.url);
const outputLines = (stdout: string): unknown[] => stdout.trimEnd().split('\n').map((line) => JSON.parse(line));

describe('ludus grade', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ludus-grade-'));
  });

  const pairsFile = async (fixture: URL, name: string): Promise<{ file: string; pairs: GradedPair[] }> => {
    const pairs = (await readFile(fixture, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as GradedPair);
    const file = join(dir, name);
    await writeFile(file, pairs.map(({ gold, pred }) => JSON.stringify({ gold, pred })).join('\n') + '\n');
    return { file, pairs };
  };

  describe('having the fixture of boxed gold/pred pairs and --extract strict', () => {
    it('should write one verdict per line, in input order, and exit 0', async () => {
      const { file, pairs } = await pairsFile(FIXTURE, 'pairs.jsonl');
      const result = await runLudus(['grade', '--jsonl', file, '--extract', 'strict']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(outputLines(result.stdout)).toEqual(pairs.map(({ answer_present, correct }) => ({ answer_present, correct })));
    });
  });

  describe('having the fixture of pairs from the standard verifiers’ behaviour and the default order', () => {
    it('should find answers in every place and grade each line as pinned', async () => {
      const { file, pairs } = await pairsFile(VERIFIER_FIXTURE, 'verifier-pairs.jsonl');
      const result = await runLudus(['grade', '--jsonl', file]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(outputLines(result.stdout)).toEqual(pairs.map(({ answer_present, correct }) => ({ answer_present, correct })));
    });
  });

  describe('having a numeric gold past 2^53', () => {
    it('should not let the wrong answer that the gold rounds to pass', async () => {
      const file = join(dir, 'big.jsonl');
      await writeFile(file, '{"gold": 12345678901234567890, "pred": "12345678901234567000"}\n{"gold": 12345678901234567890, "pred": "12345678901234567890"}\n');
      const result = await runLudus(['grade', '--jsonl', file]);
      expect(result.code).toBe(0);
      expect(outputLines(result.stdout)).toEqual([{ answer_present: true, correct: false }, { answer_present: true, correct: true }]);
    });
  });

  describe('having an unknown extraction order', () => {
    it('should exit 2 with INPUT_INVALID naming --extract, before reading the file', async () => {
      const result = await runLudus(['grade', '--jsonl', join(dir, 'missing.jsonl'), '--extract', 'boxed,guess']);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('[INPUT_INVALID] --extract: unknown extraction step "guess"');
    });
  });

  describe('having rules named', () => {
    it('should compare with Math-Verify’s rules by default and with ludus’s strict ones under --rules strict', async () => {
      const file = join(dir, 'rules.jsonl');
      await writeFile(file, `${JSON.stringify({ gold: '3, 8', pred: '\\boxed{3}\\boxed{8}' })}\n${JSON.stringify({ gold: '2.5', pred: 'It takes 2,5 hours.' })}\n`);
      const byDefault = await runLudus(['grade', '--jsonl', file]);
      const strict = await runLudus(['grade', '--jsonl', file, '--rules', 'strict']);
      expect(outputLines(byDefault.stdout)).toEqual([{ answer_present: true, correct: true }, { answer_present: true, correct: true }]);
      expect(outputLines(strict.stdout)).toEqual([{ answer_present: true, correct: false }, { answer_present: true, correct: false }]);
    });

    it('should exit 2 with INPUT_INVALID naming --rules for unknown ones', async () => {
      const result = await runLudus(['grade', '--jsonl', join(dir, 'missing.jsonl'), '--rules', 'lenient']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('[INPUT_INVALID] --rules: unknown rules "lenient" (known: strict, math-verify)');
    });
  });

  describe('having bad lines among good ones', () => {
    it('should put an error line in the place of each, report it on stderr, finish the rest, and exit 2', async () => {
      const file = join(dir, 'mixed.jsonl');
      const lines = [
        '{"gold": "3", "pred": "\\\\boxed{3}"}',
        'not json',
        '{"gold": "\\\\frac12", "pred": "\\\\boxed{0.5}"}',
        '{"gold": "3"}',
        '',
        '{"gold": 18, "pred": "\\\\boxed{17}"}',
      ];
      await writeFile(file, `${lines.join('\r\n')}\r\n`);
      const result = await runLudus(['grade', '--jsonl', file]);
      expect(result.code).toBe(2);
      expect(outputLines(result.stdout)).toEqual([
        { answer_present: true, correct: true },
        { error: { code: 'INPUT_INVALID', line: 2, message: expect.stringContaining('not JSON') } },
        { answer_present: true, correct: true },
        { error: { code: 'INPUT_INVALID', line: 4, message: expect.stringContaining('pred') } },
        { error: { code: 'INPUT_INVALID', line: 5, message: 'empty line' } },
        { answer_present: true, correct: false },
      ]);
      expect(result.stderr).toContain(`${file}:2: [INPUT_INVALID]`);
      expect(result.stderr).toContain(`${file}:4: [INPUT_INVALID]`);
      expect(result.stderr).toContain(`${file}:5: [INPUT_INVALID]`);
      expect(result.stderr).toContain('[INPUT_INVALID] 3 of 6 lines');
    });
  });

  describe('having an empty file', () => {
    it('should write nothing and exit 0', async () => {
      const file = join(dir, 'empty.jsonl');
      await writeFile(file, '');
      const result = await runLudus(['grade', '--jsonl', file]);
      expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    });
  });

  describe('having a file that does not exist', () => {
    it('should exit 2 with FILE_NOT_FOUND', async () => {
      const result = await runLudus(['grade', '--jsonl', join(dir, 'missing.jsonl')]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('[FILE_NOT_FOUND]');
    });
  });

  describe('having a directory instead of a file', () => {
    it('should exit 2 with INPUT_INVALID', async () => {
      const result = await runLudus(['grade', '--jsonl', dir]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('[INPUT_INVALID]');
    });
  });
});
