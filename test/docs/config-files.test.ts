import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownFiles } from '../support/markdown-links.js';

const root = resolve(import.meta.dirname, '../..');


/**
 * Every `--config FILE` a Markdown text names that a reader cannot find: not in the repository (from its root, where
 * the commands run), not written earlier in the same code block (`> FILE`), and not a placeholder (FILE, F, CONFIG).
 */
function missingConfigs(text: string, exists: (path: string) => boolean): string[] {
  const missing: string[] = [];
  let written = new Set<string>();
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) written = new Set();
    for (const [, file] of line.matchAll(/--config\s+([^\s`)\]]+)/g)) {
      if (/^[A-Z]+$/.test(file!) || written.has(file!) || exists(file!)) continue;
      missing.push(file!);
    }
    for (const [, file] of line.matchAll(/>\s*([\w./-]+\.json)/g)) written.add(file!);
  }
  return missing;
}

describe('configs the docs run', () => {
  it('every --config in README.md and docs/ names a file of the repository or one its block writes first', () => {
    const files = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))];
    const missing = files.flatMap((file) => missingConfigs(readFileSync(file, 'utf8'), (path) => existsSync(join(root, path))).map((config) => `${relative(root, file)}: ${config}`));
    expect(missing).toEqual([]);
  });

  it('finds a config that is nowhere, and accepts one the block writes or a placeholder', () => {
    const exists = (path: string) => path === 'examples/configs/tango.json';
    const text = [
      '```sh',
      'npx ludus experiment tandem-vs-grpo --config exp.json   # exp.json: {"eval":{}}',
      "echo '{}' > lr.json",
      'npx ludus train tictactoe --config lr.json',
      'npx ludus train tango --config examples/configs/tango.json',
      '```',
      'Then `npx ludus train GAME --config FILE`, or `--config lr.json` outside the block that wrote it.',
    ].join('\n');
    expect(missingConfigs(text, exists)).toEqual(['exp.json', 'lr.json']);
  });
});
