import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TranscriptLine } from '../../../engine/trainer/transcript-line.ts';
import { withheldSummary } from '../../../games/agon/summary.ts';
import { loadTokenizer } from '../../../plugins/tokenizers/hf-tokenizer.ts';
import { runLudus } from '../../support/cli.ts';
import { launchChromium, serveLudus, type ServingLudus } from './browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** A page that records every URL it requests, to show it reaches nothing but the server. */
async function open(url: string): Promise<{ page: Page; requested: string[] }> {
  const page = await browser.newPage();
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  await page.goto(url);
  await page.waitForSelector('#connection[data-state=open]');
  return { page, requested };
}

const tokenCount = (page: Page) => page.locator('#transcript .tok').count();

describe('the viewer page in Chromium', () => {
  describe('having a live tandem match (ludus match)', () => {
    let served: ServingLudus;
    afterAll(async () => {
      await served?.stop();
    });

    it('should show its tokens appearing as they are decoded, colored by author', async () => {
      served = await serveLudus(['match', 'tandem', '--model', 'default', '--port', '0', '--pace', '60', '--max-new-tokens', '96', '--threads', '1', '--wait-for-viewer']);
      const { page, requested } = await open(served.url);
      await page.waitForSelector('#transcript .tok');
      const early = await tokenCount(page);
      await page.waitForFunction((n) => document.querySelectorAll('#transcript .tok').length > n + 5, early);
      expect(await page.locator('#scrubber').isVisible()).toBe(false);
      await page.waitForSelector('#outcome:has-text("finished")', { timeout: 30_000 });
      const final = await tokenCount(page);
      expect(early).toBeLessThan(final);

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

  describe('having a recorded run (ludus serve --runs)', () => {
    it('should replay a finished match token by token, scrub through it and draw the curves', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-viewer-'));
      const config = join(dir, 'tiny.json');
      await writeFile(config, JSON.stringify({ problemsPerStep: 1, groupSize: 2, maxNewTokens: 160, validateEvery: 1, validationProblems: 2, finalComparison: 0 }));
      const trained = await runLudus(['train', 'tandem', '--config', config, '--steps', '2', '--out', join(dir, 'runs', 'tiny'), '--no-watch', '--threads', '1']);
      expect(trained.code).toBe(0);
      const lines = (await readFile(join(dir, 'runs', 'tiny', 'transcripts.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { matchId: string; turns: { responseIds: number[]; text: string; authors: number[]; finish: string }[] })
        .map((line) => ({ matchId: line.matchId, ...line.turns[0] }));

      const served = await serveLudus(['serve', '--runs', join(dir, 'runs'), '--port', '0']);
      try {
        const { page, requested } = await open(served.url);
        await page.waitForSelector('#runs li[data-run="tiny"][data-status="recorded"]');
        await expect(page.locator('#finished li').count()).resolves.toBe(lines.length);
        // Grouped by step, each step a group; a recorded run is a replay, with no controls.
        await expect(page.locator('#finished details summary').allTextContents()).resolves.toEqual(['tiny · step-1 (2)', 'tiny · step-0 (2)']);
        await expect(page.locator('#connection').textContent()).resolves.toBe('replay');
        await expect(page.locator('#control').isHidden()).resolves.toBe(true);
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

        await page.locator('#scrub').fill('10');
        await expect(tokenCount(page)).resolves.toBeLessThan(10);
        await expect(page.locator('#outcome').textContent()).resolves.toBe('');
        await page.locator('#scrub').fill(String(await page.locator('#scrub').getAttribute('max')));
        await expect(tokenCount(page)).resolves.toBe(line.responseIds.length);
        await page.waitForSelector('#charts figure[data-curve="reward_mean"][data-kind="role"] canvas');
        await page.waitForSelector('#charts figure[data-curve="loss"][data-kind="policy"] canvas');
        await page.waitForSelector('#charts figure[data-curve="grad_norm"][data-kind="policy"] canvas');
        await page.waitForSelector('#charts figure[data-curve="accuracy"][data-kind="validation"] canvas');
        await page.check('#smooth');
        await page.waitForSelector('#charts figure[data-curve="accuracy"][data-kind="validation"] canvas');
        await expect(page.locator('#outcome .advantage').count()).resolves.toBe(1);
        expect(requested.every((url) => url.startsWith(served.url))).toBe(true);
        await page.close();
      } finally {
        await served.stop();
      }
    });

    it('should reach every match of a long recorded run, page by page', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-viewer-long-'));
      const config = join(dir, 'tiny.json');
      await writeFile(config, JSON.stringify({ problemsPerStep: 1, groupSize: 2, maxNewTokens: 16, validateEvery: 0, finalComparison: 0 }));
      const out = join(dir, 'runs', 'long');
      expect((await runLudus(['train', 'grpo', '--config', config, '--steps', '1', '--out', out, '--no-watch', '--threads', '1'])).code).toBe(0);
      // 600 recorded matches: the same two, under 300 steps' names (more than a snapshot lists).
      const recorded = (await readFile(join(out, 'transcripts.jsonl'), 'utf8')).trim().split('\n');
      const many = Array.from({ length: 300 }, (_, step) => recorded.map((line) => line.replaceAll('"step-0/', `"step-${step}/`).replace(/"step":1,/, `"step":${step + 1},`))).flat();
      await writeFile(join(out, 'transcripts.jsonl'), `${many.join('\n')}\n`);
      const served = await serveLudus(['serve', '--runs', join(dir, 'runs'), '--port', '0']);
      try {
        const { page } = await open(served.url);
        await page.waitForSelector('#runs li[data-run="long"]');
        await expect(page.locator('#finished li').count()).resolves.toBeLessThan(600);
        while (await page.locator('#older').isVisible()) {
          const before = await page.locator('#finished li').count();
          await page.click('#older');
          await page.waitForFunction((n) => document.querySelectorAll('#finished li').length > n, before);
        }
        await expect(page.locator('#finished li').count()).resolves.toBe(600);
        await expect(page.locator('#finished li[data-match^="step-0/"]').count()).resolves.toBe(2);
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
        await page.waitForSelector('#charts figure[data-curve="reward_mean"][data-kind="role"] canvas');
        const series = await page.evaluate(() => Array.from(document.querySelectorAll('#charts figure[data-curve="loss"] .u-legend .u-series th')).map((th) => th.textContent));
        expect(series.filter((name) => name !== 'step')).toEqual(['alice', 'bob']);
        await page.close();
      } finally {
        await served.stop();
      }
    });
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
      const trained = await runLudus(['train', 'agon', '--config', config, '--steps', '1', '--out', join(dir, 'runs', 'agon'), '--no-watch', '--threads', '1']);
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
        expect(requested.every((url) => url.startsWith(served.url))).toBe(true);
        await page.close();
      } finally {
        await served.stop();
      }
    });
  });
});
