import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { serveLudus } from '../server/page/browser.ts';
import { runLudus } from '../support/cli.ts';

const root = resolve(import.meta.dirname, '../..');

/** One command of the README's first hour, and the texts its comment says it prints. */
interface Step {
  readonly command: string;
  readonly prints: readonly string[];
}

/**
 * The README's install line's ludus command, then its "The first hour" block: every `npx ludus …` line, with the
 * quoted texts ("…") of the comment lines above it, which say what it prints. A numbered comment with no command of its
 * own (step 1) speaks of the install line's command, which the block goes on from (its run directory).
 */
function firstHour(readme: string): Step[] {
  const install = /```sh\n([^\n]*npx ludus [^\n]*)\n```/.exec(readme.split(/^## /m).find((part) => part.startsWith('Install')) ?? '')?.[1];
  const installCommand = install && `npx ludus ${install.split('npx ludus ')[1]!.trim()}`;
  const section = readme.split(/^## /m).find((part) => part.startsWith('The first hour'));
  const block = section && /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md has no "## The first hour" section with a ```sh block');
  const steps: Step[] = [];
  let comment: string[] = [];
  const quoted = (lines: readonly string[]) => [...lines.join(' ').matchAll(/"([^"]+)"/g)].map((match) => match[1]!);
  for (const line of block.split('\n')) {
    if (/^# \d+\./.test(line) && comment.length > 0) {
      if (!installCommand || !comment.join(' ').includes('install line')) throw new Error(`a step of the first hour has no command and is not the install line's: ${comment[0]}`);
      steps.push({ command: installCommand, prints: quoted(comment) });
      comment = [];
    }
    if (line.startsWith('#')) comment.push(line);
    else if (line.startsWith('npx ludus ')) {
      steps.push({ command: line.trim(), prints: quoted(comment) });
      comment = [];
    } else if (line.trim() !== '') throw new Error(`the first hour's block has a line that is neither a comment nor a ludus command: ${line}`);
  }
  return steps;
}

/** How the test shortens a command (appended flags win: `--steps 4 … --steps 2` is two steps; two, so the README's plural reads the same). */
const SHORTER: readonly [RegExp, readonly string[]][] = [
  [/^train tandem /, ['--steps', '2', '--port', '0']],
  [/^train proposer-critic /, ['--steps', '2']],
  [/^serve /, ['--port', '0']],
  [/^eval /, ['--problems', '8', '--samples', '2', '--max-new-tokens', '96']],
];

function argsOf(command: string): string[] {
  expect(command, 'a first-hour command the test can split on spaces').not.toMatch(/['"\\$`|;&<>]/);
  const args = command.slice('npx ludus '.length).split(/\s+/);
  // A space after the last word, so `train tandem` alone (the install line's command) matches `^train tandem `.
  const extra = SHORTER.find(([pattern]) => pattern.test(`${args.join(' ')} `))?.[1] ?? [];
  return [...args, ...extra];
}

/** A printed text as the test matches it: the runs are shortened, so every number stands for any number. */
function printed(text: string): RegExp {
  return new RegExp(text.split(/\d+/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\d+'));
}

describe("the README's first hour, run as written (shortened by flags) in a fresh directory", () => {
  const steps = firstHour(readFileSync(join(root, 'README.md'), 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'first-hour-'));
  const outputs = new Map<string, string>();

  beforeAll(() => {
    // The example plugin, where a newcomer's checkout has it.
    symlinkSync(join(root, 'examples'), join(dir, 'examples'));
  });

  it("starts from the install line's training and covers watch, replay, evaluate against the base, writing a game and taking the policy out, each saying what it prints", () => {
    const verbs = steps.map((step) => step.command.split(' ').slice(2, 4).join(' '));
    expect(verbs).toEqual(['train tandem', 'match tandem', 'serve --runs', 'eval --model', 'games --plugin', 'train proposer-critic', 'export --format']);
    for (const step of steps) expect(step.prints.length, step.command).toBeGreaterThan(0);
    // The later steps read the run the install line made, where it made it.
    expect(steps[0]!.command).toBe('npx ludus train tandem');
    for (const step of steps.slice(2, 4)) expect(`${step.command} `).toMatch(/ runs\/tandem[ /]/);
    // Every command that trains or evaluates is shortened: an unshortened one would run the README's full size.
    for (const step of steps.filter((s) => /^npx ludus (train|eval) /.test(s.command))) expect(argsOf(step.command).slice(step.command.split(' ').length - 2).length, step.command).toBeGreaterThan(0);
  });

  it.each(steps.map((step) => [step.command, step] as const))('%s exits 0 and prints what the README says', async (_command, step) => {
    const args = argsOf(step.command);
    let output: string;
    if (args[0] === 'serve') {
      // A server runs until stopped: wait for what it prints, load the page it names, stop it.
      const served = await serveLudus(args, 60_000, dir);
      try {
        await expect.poll(() => served.stdout() + served.stderr(), { timeout: 30_000 }).toMatch(printed(step.prints.at(-1)!));
        const page = await fetch(served.url);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('<html');
      } finally {
        expect(await served.stop()).toBe(0);
      }
      output = served.stdout() + served.stderr();
    } else {
      const result = await runLudus(args, { cwd: dir, timeoutMs: 300_000 });
      output = result.stdout + result.stderr;
      expect(result.code, output).toBe(0);
    }
    outputs.set(step.command, output);
    for (const text of step.prints) expect(output).toMatch(printed(text));
  }, 300_000); // a training step and its end-of-run comparison on a loaded 2-core machine: minutes of wall time

  it("ends the training with the README's command that evaluates the run against its base", () => {
    const train = steps[0]!.command;
    const evaluate = steps.find((step) => step.command.startsWith('npx ludus eval '))!.command;
    expect(outputs.get(train)).toContain(`evaluate it against its base: ${evaluate}`);
  });
});

describe('firstHour', () => {
  it("reads commands and the quoted texts above each, a step without a command as the install line's, and refuses a block with anything else", () => {
    const readme = ['# x', '## Install', '```sh', 'npm ci && npx ludus train x', '```', '## The first hour', '```sh', '# 1. The install line trained: prints "a 1" and "b"', '', '# 2. Games: "c"', 'npx ludus games', '```'].join('\n');
    expect(firstHour(readme)).toEqual([
      { command: 'npx ludus train x', prints: ['a 1', 'b'] },
      { command: 'npx ludus games', prints: ['c'] },
    ]);
    expect(() => firstHour(readme.replace('The install line trained', 'Trained'))).toThrow(/has no command and is not the install line's/);
    expect(() => firstHour(readme.replace('npx ludus games', 'rm -rf runs'))).toThrow(/neither a comment nor a ludus command/);
    expect(() => firstHour('# x\n## Install\n')).toThrow(/no "## The first hour"/);
    expect(printed('trained tandem for 30 steps').test('trained tandem for 2 steps')).toBe(true);
    expect(printed('trained tandem for 30 steps').test('trained grpo for 2 steps')).toBe(false);
  });
});
