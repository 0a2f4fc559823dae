import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLudus } from '../support/cli.js';

const root = resolve(import.meta.dirname, '../..');

/** The subcommands a commander `--help` lists under "Commands:" (help itself left out). */
function listedCommands(help: string): string[] {
  const section = help.split(/^Commands:$/m)[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
}

describe('docs/commands.md', () => {
  it('has a row for every command and bench subcommand `ludus --help` lists', async () => {
    const page = readFileSync(resolve(root, 'docs/commands.md'), 'utf8');
    const [top, bench] = await Promise.all([runLudus(['--help']), runLudus(['bench', '--help'])]);
    expect(top.code).toBe(0);
    expect(bench.code).toBe(0);
    const commands = [...listedCommands(top.stdout).filter((name) => name !== 'bench'), ...listedCommands(bench.stdout).map((name) => `bench ${name}`)];
    expect(commands).toContain('train');
    expect(commands).toContain('bench engine');
    expect(commands.filter((command) => !page.includes(`| \`npx ludus ${command}`))).toEqual([]);
  });

  it('reads the names a help text lists, and only those', () => {
    const help = 'Usage: ludus [options]\n\nOptions:\n  -h, --help  display help\n\nCommands:\n  bench  benchmarks\n  serve-model [options] <dir>  a server\n                 wrapped text\n  help [command]  display help\n';
    expect(listedCommands(help)).toEqual(['bench', 'serve-model']);
  });
});
