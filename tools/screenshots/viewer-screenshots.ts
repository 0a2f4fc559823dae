// Remakes the viewer's screenshots in docs/images/ (the README and docs/viewer.md show them):
// a live training run, a replayed match, two runs overlaid, and a tournament. Everything is played here by the
// embedded default model, seeded, so the pictures change only when the viewer (or what it shows) does.
//
//   npx tsx tools/screenshots/viewer-screenshots.ts            # about two minutes on two cores
//   npx tsx tools/screenshots/viewer-screenshots.ts live       # only some: live, replay (with overlay), tournament
//
// Needs Debian's Chromium at /usr/bin/chromium (what the viewer's tests use).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, serveLudus, type ServingLudus } from '../../test/server/page/browser.ts';
import { runLudus } from '../../test/support/cli.ts';

const OUT = new URL('../../docs/images/', import.meta.url).pathname;
/** A common laptop's screen, the page as it opens (nothing unfolded): what a newcomer first sees. */
const VIEWPORT = { width: 1440, height: 900 };

const TRAIN = { problemsPerStep: 2, groupSize: 4, maxNewTokens: 96, validateEvery: 2, validationProblems: 8, finalComparison: 8 };
const LEAGUE = {
  entrants: [
    { name: 'base', init: 'default' },
    { name: 'ada', init: 'default', adapter: { r: 8, initStdB: 0.02 }, trainable: true },
    { name: 'bea', init: 'default', adapter: { r: 8, initStdB: 0.02 }, trainable: true },
  ],
  games: [{ game: 'agon', knobs: { turnTokens: 48 } }],
  format: { kind: 'round-robin', cycles: 3 },
  schedule: { lr: 1e-3 },
  problemsPerRound: 2,
  groupSize: 2,
  maxNewTokens: 48,
};

async function train(dir: string, name: string, seed: number): Promise<string> {
  const out = join(dir, 'runs', name);
  const result = await runLudus(['train', 'tandem', '--config', join(dir, 'train.json'), '--steps', '6', '--seed', String(seed), '--out', out, '--no-watch', '--threads', '1'], { timeoutMs: 600_000 });
  if (result.code !== 0) throw new Error(`training ${name} failed:\n${result.stderr}`);
  return out;
}

async function opened(browser: Browser, url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: VIEWPORT });
  await page.goto(url);
  await page.waitForSelector('#connection[data-state=open]');
  return page;
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, name) });
  process.stderr.write(`wrote docs/images/${name}\n`);
}

/** A live tandem run: its first steps' curves and a match being written, token by token. */
async function live(browser: Browser, dir: string): Promise<void> {
  const served = await serveLudus(['train', 'tandem', '--config', join(dir, 'train.json'), '--steps', '8', '--out', join(dir, 'live'), '--port', '0', '--threads', '1']);
  try {
    const page = await opened(browser, served.url);
    await page.waitForFunction(() => (document.querySelector('#watching')?.textContent ?? '').includes('step 3'), undefined, { timeout: 300_000 });
    await page.waitForFunction(() => document.querySelectorAll('#transcript .tok').length > 40, undefined, { timeout: 120_000 });
    await shoot(page, 'viewer-live.png');
  } finally {
    await served.stop();
  }
}

/** A recorded run replayed: a match opened by its URL, the headline above; then two runs overlaid against tokens seen. */
async function replay(browser: Browser, a: string, b: string): Promise<void> {
  const served = await serveLudus(['serve', '--runs', `${a},${b}`, '--port', '0']);
  try {
    const line = (await readFile(join(a, 'transcripts.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { matchId: string; turns: { authors: number[] }[] })
      .reverse()
      .find((candidate) => new Set(candidate.turns[0].authors).size > 1)!;
    const page = await opened(browser, `${served.url}#${encodeURIComponent('tandem-a')}/${encodeURIComponent(line.matchId)}`);
    await page.waitForSelector('#outcome .finished');
    await page.fill('#filter-text', 'plus');
    await page.waitForFunction(() => document.querySelector<HTMLElement>('#finished')?.dataset.answered === document.querySelector<HTMLElement>('#finished')?.dataset.asked);
    await shoot(page, 'viewer-replay.png');
    await page.check('input[data-overlay="tandem-a"]');
    await page.check('input[data-overlay="tandem-b"]');
    await page.selectOption('#axis', 'tokens');
    await shoot(page, 'viewer-overlay.png');
  } finally {
    await served.stop();
  }
}

/** A small Agon league: ratings after each round, the payoff table as a heat map. */
async function tournament(browser: Browser, dir: string): Promise<void> {
  await writeFile(join(dir, 'league.json'), JSON.stringify(LEAGUE));
  const served: ServingLudus = await serveLudus(['tournament', join(dir, 'league.json'), '--out', join(dir, 'league'), '--port', '0', '--threads', '1', '--seed', '3']);
  try {
    const page = await opened(browser, served.url);
    // Two rounds rated (three points per entrant), before the last round ends and the league closes the viewer.
    await page.waitForFunction(() => (document.querySelector('#ratings figure') as (HTMLElement & { uplot?: { data: unknown[][] } }) | null)?.uplot?.data[0].length === 3, undefined, { timeout: 300_000 });
    await page.waitForSelector('#payoff td[data-row]');
    await page.click('#payoff td[data-row="ada"][data-column="bea"]');
    await page.waitForFunction(() => document.querySelector<HTMLElement>('#finished')?.dataset.answered === document.querySelector<HTMLElement>('#finished')?.dataset.asked);
    await shoot(page, 'viewer-tournament.png');
  } finally {
    await served.stop();
  }
}

const SHOTS = ['live', 'replay', 'tournament'];
const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !SHOTS.includes(name));
if (unknown.length > 0) throw new Error(`unknown screenshot ${unknown.join(', ')}: choose from ${SHOTS.join(', ')}`);
const shoots = (name: string) => wanted.length === 0 || wanted.includes(name);

const dir = await mkdtemp(join(tmpdir(), 'ludus-screenshots-'));
const browser = await launchChromium();
try {
  await mkdir(OUT, { recursive: true });
  await writeFile(join(dir, 'train.json'), JSON.stringify(TRAIN));
  if (shoots('replay')) await replay(browser, await train(dir, 'tandem-a', 1), await train(dir, 'tandem-b', 2));
  if (shoots('live')) await live(browser, dir);
  if (shoots('tournament')) await tournament(browser, dir);
} finally {
  await browser.close();
  await rm(dir, { recursive: true, force: true });
}
