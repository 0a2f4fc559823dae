import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TranscriptLine } from '../../../engine/trainer/transcript-line.ts';
import { withheldSummary } from '../../../plugins/protocols/draft-challenge.ts';
import { loadTokenizer } from '../../../plugins/tokenizers/hf-tokenizer.ts';
import { runLudus } from '../../support/cli.ts';
import { launchChromium, serveLudus, type ServingLudus } from './browser.ts';
import { colorDistance, parseColor, renderedColors, strokeColors } from './pixels.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** A page that records every URL it requests, to show it reaches nothing but the server; `prepare` runs before it loads. */
async function open(url: string, prepare?: (page: Page) => Promise<unknown>): Promise<{ page: Page; requested: string[] }> {
  const page = await browser.newPage();
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  await prepare?.(page);
  await page.goto(url);
  await page.waitForSelector('#connection[data-state=open]');
  return { page, requested };
}

const tokenCount = (page: Page) => page.locator('#transcript .tok').count();

type ChartNode = HTMLElement & { uplot: { raw: (number | null)[][]; data: (number | null)[][]; over: HTMLElement; bbox: { height: number }; scales: { y: { min: number; max: number; distr: number } }; valToPos(v: number, scale: string): number } };

/**
 * The curves of a recorded run read as numbers: the values at the cursor, axes fitted to the data (and a log scale),
 * a smoothing slider that leaves the reported best where the run recorded it, and a chart's CSV.
 */
async function curvesYouCanRead(page: Page, run: string): Promise<void> {
  const metrics = (await readFile(join(run, 'metrics.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { step: number; roles: { senior: { correct: number } } });
  const validation = (await readFile(join(run, 'validation.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { step: number; accuracy: number });
  const exact = (v: number) => String(Number(v.toPrecision(6)));
  const correct = '#charts figure[data-section="headline"][data-curve="correct"]';

  // Hovering a step shows every series' value there, as recorded.
  const last = metrics.at(-1)!;
  await page.locator(correct).scrollIntoViewIfNeeded();
  const at = await page.evaluate((selector) => {
    const u = document.querySelector<ChartNode>(selector)!.uplot;
    const box = u.over.getBoundingClientRect();
    const i = u.data[0].length - 1;
    return { x: box.left + u.valToPos(u.data[0][i]!, 'x'), y: box.top + box.height / 2 };
  }, correct);
  // Just inside the plot: the last step's point sits on its right edge.
  await page.mouse.move(at.x - 1, at.y);
  await expect(page.locator(`${correct} .readout`).textContent()).resolves.toBe(`step ${last.step}: senior ${exact(last.roles.senior.correct)}`);

  // Every axis is fitted to its figure's values: none spans more than a fifth beyond them (a flat series: ±10%, ±1 at 0),
  // and the drawn points of a varying series reach across most of the plot.
  const fits = await page.$$eval('#charts figure', (nodes) =>
    (nodes as ChartNode[]).map((node) => {
      const u = node.uplot;
      const values = u.raw.slice(1).flat().filter((v): v is number => v !== null);
      const ys = values.map((v) => u.valToPos(v, 'y'));
      return { name: node.dataset.curve, min: Math.min(...values), max: Math.max(...values), low: u.scales.y.min, high: u.scales.y.max, reach: (Math.max(...ys) - Math.min(...ys)) / (u.bbox.height / devicePixelRatio), values: values.length };
    }),
  ).then((all) => all.filter((fit) => fit.values > 0));
  expect(fits.length).toBeGreaterThan(5);
  for (const fit of fits) {
    expect(fit.low, fit.name).toBeLessThanOrEqual(fit.min);
    expect(fit.high, fit.name).toBeGreaterThanOrEqual(fit.max);
    const room = fit.max > fit.min ? 1.2 * (fit.max - fit.min) : 2 * (fit.min === 0 ? 1 : 0.1 * Math.abs(fit.min));
    expect(fit.high - fit.low, fit.name).toBeLessThanOrEqual(room + 1e-9);
    if (fit.max > fit.min) expect(fit.reach, fit.name).toBeGreaterThan(0.7);
  }
  // A log scale for every figure whose values are all above 0; the rest say why they stay linear.
  await page.check('#log');
  await page.waitForFunction(() => document.querySelector<ChartNode>('#charts figure[data-curve="seconds"]')?.uplot.scales.y.distr === 3);
  const logs = await page.$$eval('#charts figure', (nodes) => (nodes as ChartNode[]).map((node) => ({ positive: node.uplot.raw.slice(1).flat().every((v) => v === null || v > 0), log: node.uplot.scales.y.distr === 3, said: node.querySelector('figcaption')!.textContent!.includes('linear: has values ≤ 0') })));
  for (const figure of logs) expect(figure.log ? figure.positive : !figure.positive && figure.said).toBe(true);
  await page.uncheck('#log');

  // Smoothing changes the lines only: the best validation accuracy stays the recorded one, at its step.
  const best = validation.reduce((top, line) => (line.accuracy > top.accuracy ? line : top));
  const accuracy = '#charts figure[data-kind="validation"][data-curve="accuracy"]';
  await page.locator('#smooth').fill('0.9');
  await expect(page.locator('#smooth-value').textContent()).resolves.toBe('0.90');
  await page.waitForSelector(`${correct} canvas`);
  await expect(page.locator(`${accuracy} figcaption`).textContent()).resolves.toContain(`best ${best.accuracy.toFixed(3)} at step ${best.step}`);
  const smoothed = await page.$eval(correct, (node) => ({ raw: (node as ChartNode).uplot.raw[1], drawn: (node as ChartNode).uplot.data[1] }));
  expect(smoothed.raw).toEqual(metrics.map((line) => line.roles.senior.correct));
  if (new Set(smoothed.raw).size > 1) expect(smoothed.drawn).not.toEqual(smoothed.raw);
  await page.locator('#smooth').fill('0');

  // A chart's series as CSV: x, then a column per series, the recorded values.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`${correct} .csv`)]);
  const csv = await readFile((await download.path())!, 'utf8');
  expect(csv).toBe(`step,senior\n${metrics.map((line) => `${line.step},${line.roles.senior.correct}`).join('\n')}\n`);
}

describe('the viewer page in Chromium', () => {
  describe('having a live tandem match (ludus match)', () => {
    let served: ServingLudus;
    afterAll(async () => {
      await served?.stop();
    });

    it('should show its tokens appearing as they are decoded, colored by author', async () => {
      served = await serveLudus(['match', 'tandem', '--model', 'default', '--port', '0', '--pace', '60', '--max-new-tokens', '96', '--threads', '1', '--wait-for-viewer']);
      // The page notes how many tokens it shows after every change, from before it loads: a slow page on a loaded
      // machine cannot miss the match (it starts once the page connected, --wait-for-viewer), nor read its count too late.
      const { page, requested } = await open(served.url, (page) =>
        page.addInitScript(() => {
          const counts: number[] = [];
          (window as unknown as { tokenCounts: number[] }).tokenCounts = counts;
          new MutationObserver(() => {
            const n = document.querySelectorAll('#transcript .tok').length;
            if (n !== counts.at(-1)) counts.push(n);
          }).observe(document, { childList: true, subtree: true });
        }),
      );
      await page.waitForSelector('#transcript .tok');
      expect(await page.locator('#scrubber').isVisible()).toBe(false);
      await page.waitForSelector('#outcome:has-text("finished")', { timeout: 60_000 });
      const final = await tokenCount(page);
      // Tokens appeared as they were decoded: the page showed some while at least 6 more were still to come.
      const counts = await page.evaluate(() => (window as unknown as { tokenCounts: number[] }).tokenCounts);
      expect(counts.at(-1)).toBe(final);
      expect(counts.some((n) => n > 0 && n + 6 <= final)).toBe(true);

      const colors = await page.evaluate(() => {
        const colorOf = (author: string) => {
          const span = document.querySelector(`#transcript .tok[data-author="${author}"]`);
          return span ? getComputedStyle(span).color : null;
        };
        return { senior: colorOf('senior'), junior: colorOf('junior') };
      });
      expect(colors.senior).not.toBeNull();
      expect(colors.junior).not.toBeNull();
      expect(colors.senior).not.toBe(colors.junior);
      await expect(page.locator('#transcript .verdict').count()).resolves.toBe(1);
      expect(requested.every((url) => url.startsWith(served.url))).toBe(true);
      await page.close();
    });

    it('should refuse a control action without the token and start another match with it', async () => {
      const { page } = await open(served.url);
      await page.fill('#token', 'not-the-token');
      await page.click('button[data-action="start-match"]');
      await page.waitForSelector('#control-status:has-text("TOKEN_REFUSED")');
      await page.fill('#token', served.token ?? '');
      await page.click('button[data-action="start-match"]');
      await page.waitForSelector('#control-status:has-text("start-match: done")');
      await page.waitForSelector('#live li[data-match^="match-1/"]', { timeout: 30_000 });
      await page.close();
      expect(await served.stop()).toBe(0);
    });
  });

  describe('having two recorded tandem runs (ludus serve --runs a,b)', () => {
    it('should replay a finished match token by token, scrub through it turn by turn and draw the headline first, in the role colours', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-viewer-'));
      const config = join(dir, 'tiny.json');
      await writeFile(config, JSON.stringify({ problemsPerStep: 1, groupSize: 2, maxNewTokens: 160, validateEvery: 1, validationProblems: 4, finalComparison: 2 }));
      const trained = await runLudus(['train', 'tandem', '--config', config, '--steps', '2', '--out', join(dir, 'runs', 'tiny'), '--no-watch', '--threads', '1']);
      expect(trained.code).toBe(0);
      const other = await runLudus(['train', 'tandem', '--config', config, '--steps', '2', '--seed', '2', '--out', join(dir, 'more', 'other'), '--no-watch', '--threads', '1']);
      expect(other.code).toBe(0);
      const lines = (await readFile(join(dir, 'runs', 'tiny', 'transcripts.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { matchId: string; prompt: string; outcome: Record<string, number>; turns: { responseIds: number[]; text: string; authors: number[]; finish: string }[] })
        .map((line) => ({ matchId: line.matchId, prompt: line.prompt, outcome: line.outcome, ...line.turns[0] }));

      const served = await serveLudus(['serve', '--runs', `${join(dir, 'runs')},${join(dir, 'more', 'other')}`, '--port', '0']);
      try {
        const { page, requested } = await open(served.url);
        await page.setViewportSize({ width: 1400, height: 900 });
        await page.waitForSelector('#runs li[data-run="tiny"][data-status="recorded"]');
        await page.waitForSelector('#runs li[data-run="other"][data-status="recorded"]');
        await expect(page.locator('#finished li').count()).resolves.toBe(lines.length);
        // Each row shows the problem and each role's outcome; a recorded run is a replay, with no controls.
        const first = page.locator(`#finished li[data-match="${lines.at(-1)!.matchId}"]`);
        await expect(first.locator('.row-problem').textContent()).resolves.toBe(lines.at(-1)!.prompt.replace(/\s+/g, ' ').slice(0, 160));
        await expect(first.locator('.row-role').allTextContents()).resolves.toEqual(Object.entries(lines.at(-1)!.outcome).map(([role, value]) => expect.stringMatching(new RegExp(`^${role} ${value}`))));
        await expect(page.locator('#connection').textContent()).resolves.toBe('replay');
        await expect(page.locator('#control').isHidden()).resolves.toBe(true);
        await expect(page.locator('#watching').textContent()).resolves.toBe(`tiny · tandem · step 2 · ${lines.length} matches recorded`);

        // The headline renders first: above every other curve and the match list, in the first screen.
        await page.waitForSelector('#charts figure[data-section="headline"][data-curve="reward_mean"] canvas');
        const headline = await page.locator('#charts figure[data-section="headline"]').evaluateAll((nodes) => nodes.map((node) => `${node.dataset.kind}/${node.dataset.curve}`));
        expect(headline).toEqual(['role/reward_mean', 'role/correct', 'validation/accuracy', 'role/share']);
        const lowestHeadline = Math.max(...(await page.locator('#charts figure[data-section="headline"]').evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().bottom))));
        expect(lowestHeadline).toBeLessThan(900);
        // The run's final figures (summary.json) head the curves, each with its standard error.
        const summary = JSON.parse(await readFile(join(dir, 'runs', 'tiny', 'summary.json'), 'utf8')) as { comparison: { trained: { value: number; se: number } }; best: { step: number; accuracy: { value: number } } };
        await expect(page.locator('#summary').textContent()).resolves.toContain(`trained ${(100 * summary.comparison.trained.value).toFixed(1)}% ± ${(100 * summary.comparison.trained.se).toFixed(1)}`);
        await expect(page.locator('#summary').textContent()).resolves.toContain(`best validation accuracy ${(100 * summary.best.accuracy.value).toFixed(1)}%`);
        const others = await page.locator('#charts details, #finished').evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().top));
        expect(Math.min(...others)).toBeGreaterThanOrEqual(lowestHeadline);
        await expect(page.locator('#charts details.internals').getAttribute('open')).resolves.toBeNull();
        await expect(page.locator('#charts details.internals figure[data-curve="lr"]').count()).resolves.toBe(1);
        // Each curve is stroked in its legend's colour, and the senior's is the colour its tokens have (--senior).
        const senior = parseColor(await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--senior')));
        for (const curve of ['correct', 'share', 'reward_mean']) {
          const strokes = await strokeColors(browser, page, `#charts figure[data-section="headline"][data-curve="${curve}"]`);
          expect(strokes.every((series) => series.ok), JSON.stringify(strokes)).toBe(true);
          const seniorSeries = strokes.find((series) => series.label === 'senior')!;
          expect(colorDistance(seniorSeries.legend, senior)).toBe(0);
          if (curve !== 'reward_mean') expect(seniorSeries.distances.length).toBeGreaterThan(0);
        }

        // A match that ended on its end-of-text token and that both authors wrote (the seed is fixed, so one is there).
        const line = lines.find((candidate) => candidate.finish === 'stop' && new Set(candidate.authors).size > 1)!;
        expect(line).toBeDefined();
        await page.click(`#finished li[data-match="${line.matchId}"]`);
        await page.waitForSelector('#scrubber', { state: 'visible' });
        await page.waitForFunction((n) => document.querySelectorAll('#transcript .tok').length === n, line.responseIds.length);
        const shown = await page.evaluate(() => Array.from(document.querySelectorAll<HTMLElement>('#transcript .tok'), (span) => ({ author: span.dataset.author, text: span.textContent, special: span.dataset.special })));
        expect(shown.map((token) => token.text).join('')).toBe(line.text);
        expect(shown.map((token) => token.author)).toEqual(line.authors.map((author) => ['senior', 'junior'][author]));
        // The end-of-text token is a marker, not text; a turn both authors wrote says so.
        expect(shown.at(-1)).toMatchObject({ text: '', special: '<|endoftext|>' });
        await expect(page.locator('.turn-label').first().textContent()).resolves.toMatch(/co-written by senior \(senior\) and junior \(junior\)|co-written by junior \(junior\) and senior \(senior\)/);
        // Its title says what it is: the problem's first line, who played, the outcome; the id stands beside it.
        const title = await page.locator('#match-title').textContent();
        expect(title).toContain(line.prompt.split('\n').find((l) => l.trim() !== '')!.trim().slice(0, 40));
        expect(title).toContain('senior, junior');
        expect(title).toMatch(new RegExp(`senior ${line.outcome.senior}( ✓| ✗)?`));
        await expect(page.locator('#match-id').textContent()).resolves.toContain(line.matchId);
        // Opened at 1400×900, the headline and the match share the first screen.
        const [headlineBox, tokenBox] = await Promise.all([page.locator('#headline').boundingBox(), page.locator('#transcript .tok').first().boundingBox()]);
        expect(headlineBox!.y + headlineBox!.height).toBeLessThan(tokenBox!.y);
        expect(tokenBox!.y + tokenBox!.height).toBeLessThan(900);
        await expect(page.locator('#outcome .group-title').textContent()).resolves.toBe('group of 2');

        await page.locator('#scrub').fill('10');
        await expect(tokenCount(page)).resolves.toBeLessThan(10);
        await expect(page.locator('#outcome').textContent()).resolves.toBe('');
        await page.locator('#scrub').fill(String(await page.locator('#scrub').getAttribute('max')));
        await expect(tokenCount(page)).resolves.toBe(line.responseIds.length);
        // The arrow keys go turn by turn: back to where the turn had just ended (all tokens, no reward yet), then the start.
        await page.locator('body').press('ArrowLeft');
        await expect(tokenCount(page)).resolves.toBe(line.responseIds.length);
        await expect(page.locator('#outcome .finished').count()).resolves.toBe(0);
        await page.locator('body').press('ArrowLeft');
        await expect(tokenCount(page)).resolves.toBe(0);
        await page.locator('body').press('ArrowRight');
        await expect(tokenCount(page)).resolves.toBe(line.responseIds.length);
        await page.locator('body').press('ArrowRight');
        await expect(page.locator('#outcome .finished').count()).resolves.toBe(1);

        // The match has a URL; opened cold in another page, it shows that match.
        const url = page.url();
        expect(new URL(url).hash).toBe(`#tiny/${encodeURIComponent(line.matchId)}`);
        const cold = await browser.newPage();
        await cold.goto(url);
        await cold.waitForFunction((n) => document.querySelectorAll('#transcript .tok').length === n, line.responseIds.length);
        await expect(cold.locator('#match-id').textContent()).resolves.toContain(line.matchId);
        await expect(cold.locator(`#finished li.selected`).getAttribute('data-match')).resolves.toBe(line.matchId);
        await cold.close();

        // Each row shows the answer the grader judged against the gold one.
        const judged = JSON.parse((await readFile(join(dir, 'runs', 'tiny', 'transcripts.jsonl'), 'utf8')).trim().split('\n').at(-1)!) as TranscriptLine;
        await expect(page.locator(`#finished li[data-match="${judged.matchId}"] .row-answer`).textContent()).resolves.toMatch(new RegExp(`^(answered \\S+|no answer) · gold ${judged.answer!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));

        await curvesYouCanRead(page, join(dir, 'runs', 'tiny'));
        await page.click('#charts details.more-curves > summary');
        await page.waitForSelector('#charts figure[data-curve="loss"][data-kind="policy"] canvas');
        await page.waitForSelector('#charts figure[data-curve="grad_norm"][data-kind="policy"] canvas');
        await page.waitForSelector('#charts figure[data-curve="accuracy"][data-kind="validation"] canvas');
        await expect(page.locator('#outcome .advantage').count()).resolves.toBe(1);

        // Two runs overlaid: a series per run, labelled by run, each in its run's colour; the x axis in tokens seen.
        await page.check('input[data-overlay="tiny"]');
        await page.check('input[data-overlay="other"]');
        await page.selectOption('#axis', 'tokens');
        const figure = '#charts figure[data-section="headline"][data-curve="correct"]';
        await page.waitForFunction((selector) => document.querySelectorAll(`${selector} .u-legend .u-series`).length === 2, figure);
        await expect(page.locator(`${figure} .u-legend .u-label`).allTextContents()).resolves.toEqual(['tiny · senior', 'other · senior']);
        const overlaid = await strokeColors(browser, page, figure);
        expect(overlaid.every((series) => series.ok), JSON.stringify(overlaid)).toBe(true);
        expect(colorDistance(overlaid[0].legend, overlaid[1].legend)).toBeGreaterThan(100);
        await expect(page.locator(`${figure} .u-axis`).first().textContent()).resolves.not.toContain('1.5');
        expect(requested.every((url) => url.startsWith(served.url))).toBe(true);
        await page.close();
      } finally {
        await served.stop();
      }
    });

    it('should filter and search a run of 1,920 matches within 200 ms in the page, and page through every one', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-viewer-long-'));
      const config = join(dir, 'tiny.json');
      await writeFile(config, JSON.stringify({ problemsPerStep: 2, groupSize: 2, maxNewTokens: 16, validateEvery: 0, finalComparison: 0 }));
      const out = join(dir, 'runs', 'long');
      expect((await runLudus(['train', 'grpo', '--config', config, '--steps', '1', '--out', out, '--no-watch', '--threads', '1'])).code).toBe(0);
      // 1,920 recorded matches: the same four, under 480 steps' names.
      const recorded = (await readFile(join(out, 'transcripts.jsonl'), 'utf8')).trim().split('\n');
      const many = Array.from({ length: 480 }, (_, step) => recorded.map((line) => line.replaceAll('"step-0/', `"step-${step}/`).replace(/"step":1,/, `"step":${step + 1},`))).flat();
      await writeFile(join(out, 'transcripts.jsonl'), `${many.join('\n')}\n`);
      const lines = many.map((line) => JSON.parse(line) as TranscriptLine);
      const word = lines[0].prompt.split(/\s+/).find((w) => /\d/.test(w))!.replace(/[^0-9]/g, '');
      const expected = {
        all: lines.length,
        wrong: lines.filter((line) => line.verdicts.some((v) => v.role === 'senior' && v.judge === 'grader' && v.step === undefined && !v.correct)).length,
        search: lines.filter((line) => `${line.matchId}\n${line.problemId}\n${line.prompt}\n${line.turns.map((turn) => turn.text).join('')}`.toLowerCase().includes(word)).length,
        step: 2,
      };
      expect(expected.search).toBeGreaterThan(0);
      expect(expected.search).toBeLessThan(lines.length);
      const served = await serveLudus(['serve', '--runs', join(dir, 'runs'), '--port', '0']);
      try {
        const { page } = await open(served.url);
        await page.waitForSelector('#runs li[data-run="long"]');
        await page.waitForFunction((n) => document.querySelector('#match-count')?.textContent === `${n} matches`, expected.all);
        await expect(page.locator('#finished li').count()).resolves.toBe(50);
        /** Sets a filter control as a person would and measures, in the page, until the list shows the answer. */
        const timed = (selector: string, value: string) =>
          page.evaluate(
            async ({ selector, value }) => {
              const control = document.querySelector<HTMLInputElement | HTMLSelectElement>(selector)!;
              const list = document.querySelector<HTMLElement>('#finished')!;
              const started = performance.now();
              control.value = value;
              control.dispatchEvent(new Event('input', { bubbles: true }));
              const asked = list.dataset.asked;
              while (list.dataset.answered !== asked) await new Promise((resolve) => requestAnimationFrame(resolve));
              return { ms: performance.now() - started, count: document.querySelector('#match-count')!.textContent };
            },
            { selector, value },
          );
        const searched = await timed('#filter-text', word);
        expect(searched.count).toBe(`${expected.search} match${expected.search === 1 ? '' : 'es'}`);
        expect(searched.ms).toBeLessThan(200);
        await timed('#filter-text', '');
        await timed('#filter-role', 'senior');
        const wrong = await timed('#filter-verdict', 'wrong');
        expect(wrong.count).toBe(`${expected.wrong} match${expected.wrong === 1 ? '' : 'es'}`);
        expect(wrong.ms).toBeLessThan(200);
        await timed('#filter-verdict', '');
        const step = await timed('#filter-step', '17');
        expect(step.count).toBe('4 matches');
        expect(step.ms).toBeLessThan(200);
        await expect(page.locator('#finished li').evaluateAll((items) => items.map((item) => item.dataset.match!.split('/')[0]))).resolves.toEqual(['step-16', 'step-16', 'step-16', 'step-16']);
        await page.click('#filter-clear');
        await page.waitForFunction((n) => document.querySelector('#match-count')?.textContent === `${n} matches`, expected.all);
        while (await page.locator('#more').isVisible()) {
          const before = await page.locator('#finished li').count();
          await page.click('#more');
          await page.waitForFunction((n) => document.querySelectorAll('#finished li').length > n, before);
        }
        await expect(page.locator('#finished li').count()).resolves.toBe(1920);
        await expect(page.locator('#finished li[data-match^="step-0/"]').count()).resolves.toBe(4);
        await page.close();
      } finally {
        await served.stop();
      }
    });
  });

  describe('having a recorded run of a two-role sequential game from a plugin module', () => {
    it('should show the problem and gold answer, every turn with its role and policy, a step verdict beside its step, and curves per role and per policy', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-viewer-relay-'));
      const config = join(dir, 'relay.json');
      const relay = new URL('../../fixtures/plugins/relay.ts', import.meta.url).pathname;
      await writeFile(config, JSON.stringify({ problemsPerStep: 1, groupSize: 2, validateEvery: 0, finalComparison: 0, plugins: [relay] }));
      const trained = await runLudus(['train', 'relay', '--config', config, '--steps', '2', '--out', join(dir, 'runs', 'relay'), '--no-watch', '--threads', '1']);
      expect(trained.code).toBe(0);
      const lines = (await readFile(join(dir, 'runs', 'relay', 'transcripts.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { matchId: string; seats: Record<string, string>; turns: { role: string; stepEnds: number[] }[]; verdicts: { step?: number; correct: boolean }[] });
      const line = lines.find((candidate) => candidate.verdicts.some((verdict) => verdict.step === 0))!;

      const served = await serveLudus(['serve', '--runs', join(dir, 'runs'), '--port', '0']);
      try {
        const { page } = await open(served.url);
        await page.click(`#finished li[data-match="${line.matchId}"]`);
        await page.waitForSelector('#outcome .finished');
        await expect(page.locator('#transcript .problem .gold').textContent()).resolves.toMatch(/^gold answer: \S+/);
        const labels = await page.locator('#transcript .turn-label').allTextContents();
        expect(labels).toEqual([expect.stringMatching(new RegExp(`^turn 0 · opener \\(${line.seats.opener}\\)`)), expect.stringMatching(new RegExp(`^turn 1 · closer \\(${line.seats.closer}\\)`))]);
        // The step verdict sits right after the last token of the step it judges.
        const before = await page.evaluate(() => {
          const badge = document.querySelector<HTMLElement>('.turn[data-turn="0"] .step-verdict[data-step="0"]');
          const tokens = Array.from(document.querySelectorAll('.turn[data-turn="0"] .tok'));
          return badge ? tokens.indexOf(badge.previousElementSibling as Element) : -2;
        });
        expect(before).toBe(line.turns[0].stepEnds[0]);
        await expect(page.locator('.turn[data-turn="0"] .step-verdict[data-step="0"]').getAttribute('data-judge')).resolves.toBe('closer');
        // The arrow keys go turn by turn: back to the end of the opener's turn, the closer's not yet begun.
        await page.locator('body').press('ArrowLeft');
        await page.locator('body').press('ArrowLeft');
        await expect(page.locator('.turn[data-turn="1"] .tok').count()).resolves.toBe(0);
        await expect(page.locator('.turn[data-turn="0"] .tok').count()).resolves.toBeGreaterThan(0);
        await page.waitForSelector('#charts figure[data-curve="reward_mean"][data-kind="role"] canvas');
        const series = await page.evaluate(() => Array.from(document.querySelectorAll('#charts figure[data-curve="loss"] .u-legend .u-series th')).map((th) => th.textContent));
        expect(series.filter((name) => name !== 'step')).toEqual(['alice', 'bob']);
        // A user game's curves are stroked in its roles' and policies' legend colours, one colour each.
        await page.setViewportSize({ width: 1400, height: 1000 });
        await page.click('#charts details.more-curves > summary');
        for (const figure of ['#charts figure[data-section="headline"][data-curve="reward_mean"]', '#charts figure[data-curve="loss"][data-kind="policy"]']) {
          const strokes = await strokeColors(browser, page, figure);
          expect(strokes.every((stroke) => stroke.ok) && strokes.some((stroke) => stroke.distances.length > 0), JSON.stringify(strokes)).toBe(true);
          expect(colorDistance(strokes[0].legend, strokes[1].legend)).toBeGreaterThan(60);
        }
        await page.close();
      } finally {
        await served.stop();
      }
    });
  });
});

describe('the viewer page in Chromium, on a finished league', () => {
  it('should replay it from its directory or the one above: ratings μ ± σ over rounds, the leaderboard, the payoff heat map, entrants in every row', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ludus-viewer-league-'));
    const config = join(dir, 'league.json');
    await writeFile(
      config,
      JSON.stringify({
        entrants: [{ name: 'base' }, { name: 'alice', trainable: true, snapshotEvery: 1, schedule: { lr: 1e-3 } }],
        games: [{ game: 'grpo' }],
        format: { kind: 'league', rounds: 2, opponents: 1 },
        problemsPerRound: 2,
        groupSize: 2,
        maxNewTokens: 48,
      }),
    );
    const out = join(dir, 'runs', 'league');
    expect((await runLudus(['tournament', config, '--out', out, '--no-watch', '--threads', '1'])).code).toBe(0);
    const standings = JSON.parse(await readFile(join(out, 'standings.json'), 'utf8')) as { standings: { entrant: string; overall: { mu: number; sigma: number; ordinal: number }; record: { wins: number; draws: number; losses: number } }[] };
    const payoff = JSON.parse(await readFile(join(out, 'payoff.json'), 'utf8')) as { overall: Record<string, Record<string, { wins: number; draws: number; losses: number }>> };
    const ratings = (await readFile(join(out, 'ratings.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { step: number; overall: Record<string, { mu: number; sigma: number }> });
    const lines = (await readFile(join(out, 'games', 'grpo', 'transcripts.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as TranscriptLine);

    for (const runs of [out, join(dir, 'runs')]) {
      const served = await serveLudus(['serve', '--runs', runs, '--port', '0']);
      try {
        const { page } = await open(served.url);
        await page.setViewportSize({ width: 1400, height: 900 });
        await page.waitForSelector('#runs li[data-run="league/grpo"][data-status="recorded"]');
        await page.waitForSelector('#leaderboard tr[data-entrant]');
        // The leaderboard: every entrant with μ − 3σ, μ ± σ, games and record, in the standings' order.
        const rows = await page.locator('#leaderboard tr[data-entrant]').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)));
        expect(rows.map((row) => row[1]!.split(' ')[0])).toEqual(standings.standings.map((s) => s.entrant));
        standings.standings.forEach((s, i) => {
          const { wins, draws, losses } = s.record;
          expect(rows[i]!.slice(2)).toEqual([s.overall.ordinal.toFixed(2), `${s.overall.mu.toFixed(2)} ± ${s.overall.sigma.toFixed(2)}`, String(Number((wins + draws + losses).toFixed(2))), [wins, draws, losses].map((n) => String(Number(n.toFixed(2)))).join('–')]);
        });
        // The ratings: each entrant's μ after every round (its first point the prior, a snapshot's the round it joined).
        const chart = await page.$eval('#ratings figure[data-curve="rating"]', (node) => {
          const u = (node as HTMLElement & { uplot: { data: (number | null)[][]; series: { label: string }[] } }).uplot;
          return { rounds: u.data[0], series: u.series.slice(1).map((s, i) => ({ label: s.label, mu: u.data[i + 1] })) };
        });
        expect(chart.rounds).toEqual([0, ...ratings.map((line) => line.step)]);
        const alice = chart.series.find((s) => s.label === 'alice')!;
        expect(alice.mu).toEqual([25, ...ratings.map((line) => line.overall.alice.mu)]);
        expect(chart.series.find((s) => s.label === 'alice@1')!.mu).toEqual([null, 25, ratings[1].overall['alice@1'].mu]);
        // The ± σ band is drawn: inside it, off the lines, the canvas is tinted; above it, it is the background.
        const band = await page.$eval('#ratings figure[data-curve="rating"]', (node) => {
          const u = (node as HTMLElement & { uplot: { over: HTMLElement; valToPos(v: number, s: string): number } }).uplot;
          const box = u.over.getBoundingClientRect();
          // The widest band is the prior's (σ = 25/3) at round 0: halfway between its top and the plot's top is outside every band.
          return { x: box.left + box.width * 0.25, inside: box.top + u.valToPos(25 + 4, 'y'), outside: box.top + u.valToPos(25 + 25 / 3, 'y') / 2, background: getComputedStyle(document.documentElement).backgroundColor };
        });
        const [[inside], [outside]] = await renderedColors(browser, page, [{ x: band.x, y: band.inside }, { x: band.x, y: band.outside }]);
        expect(colorDistance(inside!, parseColor(band.background))).toBeGreaterThan(8);
        expect(colorDistance(outside!, parseColor(band.background))).toBeLessThan(12);
        await expect(page.locator('#ratings figcaption').textContent()).resolves.toContain('μ − 3σ rises');
        // The payoff heat map: every cell's score rate as payoff.json says, painted by it.
        const cells = await page.locator('#payoff td[data-row]').evaluateAll((tds) => tds.map((td) => ({ row: td.dataset.row, column: td.dataset.column, rate: Number(td.dataset.rate), text: td.querySelector('.payoff-mean')!.textContent })));
        for (const cell of cells) {
          const h = payoff.overall[cell.row!]![cell.column!]!;
          expect(cell.rate).toBeCloseTo((h.wins + h.draws / 2) / (h.wins + h.draws + h.losses), 9);
          expect(cell.text).toBe(cell.rate.toFixed(2));
        }
        expect(cells.length).toBeGreaterThan(0);
        // Every row names who sat where and the round.
        await expect(page.locator('#finished li').count()).resolves.toBe(lines.length);
        const row = page.locator(`#finished li[data-match="${lines.at(-1)!.matchId}"]`);
        await expect(row.locator('.row-entrants').textContent()).resolves.toBe(Object.entries(lines.at(-1)!.seats).map(([role, entrant]) => `${role} ${entrant}`).join(' · '));
        await expect(row.locator('.row-step').textContent()).resolves.toBe('round 2');
        await page.close();
      } finally {
        await served.stop();
      }
    }
  });
});

describe('the viewer page in Chromium, on Agon', () => {
  describe('having a live agon match (ludus match)', () => {
    it('should lay draft and challenge side by side as they are decoded and show, once the draft ends, the summary the challenger reads and the withheld answer', async () => {
      const served = await serveLudus(['match', 'agon', '--model', 'default', '--port', '0', '--pace', '5', '--threads', '1', '--wait-for-viewer']);
      try {
        const { page } = await open(served.url);
        await page.waitForSelector('#transcript .tok');
        await expect(page.locator('#transcript').getAttribute('class')).resolves.toContain('side-by-side');
        await page.waitForSelector('#outcome:has-text("finished")', { timeout: 60_000 });
        const draft = (await page.locator('.turn[data-turn="0"] .tok').allTextContents()).join('');
        const { summary, answer } = withheldSummary(draft, { maskMentions: true });
        await expect(page.locator('.turn[data-turn="0"] .read-summary-text').textContent()).resolves.toBe(summary);
        await expect(page.locator('.turn[data-turn="0"] .withheld-answer').getAttribute('data-withheld')).resolves.toBe(answer ?? '');
        const [draftBox, challengeBox] = await Promise.all([page.locator('.turn[data-turn="0"]').boundingBox(), page.locator('.turn[data-turn="1"]').boundingBox()]);
        expect(challengeBox!.x).toBeGreaterThan(draftBox!.x + draftBox!.width - 1);
        await page.close();
      } finally {
        await served.stop();
      }
    });
  });

  describe('having a recorded agon run (ludus serve --runs)', () => {
    const dirs: string[] = [];
    afterAll(async () => {
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    });

    it('should show draft and challenge side by side, the summary the challenger read with the withheld places marked, and the withheld answer', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-viewer-agon-'));
      dirs.push(dir);
      const config = join(dir, 'agon.json');
      await writeFile(config, JSON.stringify({ problemsPerStep: 2, groupSize: 2, validateEvery: 0, finalComparison: 0, knobs: { turnTokens: 64 } }));
      // Three steps: the curves' colours are read where the roles' points differ (on the shipped judging base, at steps
      // 1 and 2 of this seed both roles score alike, so one stroke hides the other; at step 3 they part).
      const trained = await runLudus(['train', 'agon', '--config', config, '--steps', '3', '--out', join(dir, 'runs', 'agon'), '--no-watch', '--threads', '1']);
      expect(trained.code).toBe(0);
      const tokenizer = await loadTokenizer(join(dir, 'runs', 'agon'));
      const lines = (await readFile(join(dir, 'runs', 'agon', 'transcripts.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as TranscriptLine);
      // A match whose draft boxed an answer, so there is one to withhold (the seed is fixed, so one is there).
      const line = lines.find((candidate) => withheldSummary(candidate.turns[0].text, { maskMentions: true }).answer !== null)!;
      expect(line).toBeDefined();
      const { summary, answer } = withheldSummary(line.turns[0].text, { maskMentions: true });

      const served = await serveLudus(['serve', '--runs', join(dir, 'runs'), '--port', '0']);
      try {
        const { page, requested } = await open(served.url);
        await page.click(`#finished li[data-match="${line.matchId}"]`);
        await page.waitForSelector('#outcome .finished');
        await expect(page.locator('#transcript').getAttribute('class')).resolves.toContain('side-by-side');
        const labels = await page.locator('#transcript .turn-label').allTextContents();
        expect(labels).toEqual([expect.stringMatching(new RegExp(`^turn 0 · drafter \\(${line.seats.drafter}\\)`)), expect.stringMatching(new RegExp(`^turn 1 · challenger \\(${line.seats.challenger}\\)`))]);
        // Side by side: the challenge's column starts level with the draft's, to its right.
        const [draftBox, challengeBox] = await Promise.all([page.locator('.turn[data-turn="0"]').boundingBox(), page.locator('.turn[data-turn="1"]').boundingBox()]);
        expect(challengeBox!.x).toBeGreaterThan(draftBox!.x + draftBox!.width - 1);
        expect(Math.abs(challengeBox!.y - draftBox!.y)).toBeLessThan(2);
        // The summary shown under the draft is what the challenger read: it stands in the challenger's recorded prompt.
        const shown = await page.locator('.turn[data-turn="0"] .read-summary-text').textContent();
        expect(shown).toBe(summary);
        expect(tokenizer.decode(line.turns[1].promptIds)).toContain(shown!);
        await expect(page.locator('.turn[data-turn="0"] mark.withheld').count()).resolves.toBe(summary.split('[withheld]').length - 1);
        await expect(page.locator('.turn[data-turn="0"] .withheld-answer').getAttribute('data-withheld')).resolves.toBe(answer);
        await expect(page.locator('.turn[data-turn="0"] .withheld-answer').textContent()).resolves.toContain('withheld from the challenger');
        // The challenge's column shows no summary of its own.
        await expect(page.locator('.turn[data-turn="1"] .read-summary').count()).resolves.toBe(0);
        // A two-policy game's role curves, in their legend colours.
        await page.setViewportSize({ width: 1400, height: 1000 });
        const strokes = await strokeColors(browser, page, '#charts figure[data-section="headline"][data-curve="reward_mean"]');
        expect(strokes.map((stroke) => stroke.label)).toEqual(['challenger', 'drafter']);
        expect(strokes.every((stroke) => stroke.ok) && strokes.some((stroke) => stroke.distances.length > 0), JSON.stringify(strokes)).toBe(true);
        expect(requested.every((url) => url.startsWith(served.url))).toBe(true);
        await page.close();
      } finally {
        await served.stop();
      }
    });
  });
});
