import type { Command } from 'commander';
import { loadTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import { findWordBoundary } from '../../plugins/tokenizers/word-boundary.ts';

export interface TokenizerReport {
  vocab_size: number;
  /** Ids that open a word; null when the tokenizer marks no word starts. */
  boundary_count: number | null;
  marker: string | null;
}

const codePoint = (marker: string): string => [...marker].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(' ');

function formatReport(report: TokenizerReport): string {
  const lines = [`vocab size       ${report.vocab_size}`];
  if (report.marker === null || report.boundary_count === null) {
    lines.push('word marker      none (no word-initial tokens)');
  } else {
    const share = ((100 * report.boundary_count) / report.vocab_size).toFixed(1);
    lines.push(`word marker      ${report.marker} (${codePoint(report.marker)})`, `word-initial ids ${report.boundary_count} (${share}% of the vocabulary)`);
  }
  return `${lines.join('\n')}\n`;
}

export function register(program: Command): void {
  const tokenizer = program.command('tokenizer').description('Hugging Face tokenizers (tokenizer.json)');
  tokenizer
    .command('inspect <file>')
    .description('vocabulary size and word-boundary set of a tokenizer.json or a model directory')
    .option('--json', 'print one JSON object')
    .action(async (file: string, opts: { json?: boolean }) => {
      const loaded = await loadTokenizer(file);
      const boundary = findWordBoundary(loaded);
      const report: TokenizerReport = {
        vocab_size: loaded.vocabSize,
        boundary_count: boundary?.ids.length ?? null,
        marker: boundary?.marker ?? null,
      };
      process.stdout.write(opts.json ? `${JSON.stringify(report)}\n` : formatReport(report));
    });
}
