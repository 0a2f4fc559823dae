import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { fail } from '../../core/errors.ts';
import { gradeJsonLine } from '../../plugins/graders/graded-line.ts';
import { defaultRules, EXTRACTION_STEPS, parseExtractionOrder, parseGradingRules } from '../../plugins/graders/math/extract.ts';

export function register(program: Command): void {
  program
    .command('grade')
    .description('grade math answers: one {"answer_present","correct"} JSON line per {"gold","pred"} input line, in order')
    .requiredOption('--jsonl <file>', 'JSON lines, each {"gold": answer or worked solution, "pred": model output}')
    .option('--extract <order>', `where the answer of "pred" is looked for: full (${EXTRACTION_STEPS.join(', then ')}), strict (boxed only, the RL reward's format), or steps separated by commas`, 'full')
    .option('--rules <rules>', "how answers are compared: math-verify (ludus's rules and Math-Verify 0.8.0's leniencies, as math-full) or strict (ludus's own, the RL reward's); default: strict with --extract strict, else math-verify")
    .action(async (opts: { jsonl: string; extract: string; rules?: string }) => {
      const extraction = parseExtractionOrder(opts.extract);
      const rules = opts.rules === undefined ? defaultRules(extraction) : parseGradingRules(opts.rules);
      await requireFile(opts.jsonl);
      const badLines: number[] = [];
      let lineNumber = 0;
      for await (const line of createInterface({ input: createReadStream(opts.jsonl, 'utf8'), crlfDelay: Infinity })) {
        lineNumber++;
        const graded = gradeJsonLine(line, lineNumber, extraction, rules);
        if ('error' in graded) {
          badLines.push(lineNumber);
          process.stderr.write(`ludus grade: ${opts.jsonl}:${lineNumber}: [${graded.error.code}] ${graded.error.message}\n`);
        }
        process.stdout.write(`${JSON.stringify(graded)}\n`);
      }
      if (badLines.length > 0) {
        const shown = badLines.slice(0, 20).join(', ') + (badLines.length > 20 ? ', ...' : '');
        fail('INPUT_INVALID', `${badLines.length} of ${lineNumber} lines of ${opts.jsonl} could not be graded (lines ${shown}); each has an error line in its place`, { file: opts.jsonl, lines: badLines });
      }
    });
}

async function requireFile(path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (!info) fail('FILE_NOT_FOUND', `${path}: no such file`, { path });
  if (!info.isFile()) fail('INPUT_INVALID', `${path} is not a file`, { path });
}
