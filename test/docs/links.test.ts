import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenLinks, markdownFiles } from '../support/markdown-links.js';

const root = resolve(import.meta.dirname, '../..');

describe('documentation links', () => {
  it('every relative link in README.md and docs/**/*.md resolves, anchors included', () => {
    const files = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))];
    expect(brokenLinks(files, root)).toEqual([]);
  });

  it('the checker reports a broken link with its file and line, and passes a good one', () => {
    const folder = mkdtempSync(join(tmpdir(), 'links-'));
    mkdirSync(join(folder, 'docs'));
    writeFileSync(join(folder, 'docs', 'there.md'), '# there\n\n## Agon\'s cascade (§4)\n');
    writeFileSync(
      join(folder, 'README.md'),
      [
        'See [the guide](docs/there.md#there) and [the web](https://example.com).',
        '```',
        '[in code](nowhere.md)',
        '```',
        'And [a missing one](docs/missing.md).',
        "[A heading's anchor](docs/there.md#agons-cascade-4), [a missing anchor](docs/there.md#nowhere), [here](#readme-top).",
        '# README top',
      ].join('\n'),
    );
    expect(brokenLinks([join(folder, 'README.md')], folder)).toEqual([
      { file: 'README.md', line: 5, target: 'docs/missing.md' },
      { file: 'README.md', line: 6, target: 'docs/there.md#nowhere' },
    ]);
  });
});
