import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TranscriptLine } from '../../../engine/trainer/transcript-line.ts';
import { runLudus } from '../../support/cli.ts';
import { launchChromium, serveLudus } from './browser.ts';
import { colorDistance, parseColor, renderedColors } from './pixels.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('a tool game trained and replayed in the viewer', () => {
  it("should record the calculator's results as env spans and draw them in the env colour", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ludus-viewer-calc-'));
    const config = join(dir, 'calc.json');
    await writeFile(config, JSON.stringify({ problemsPerStep: 4, groupSize: 4, validateEvery: 0, finalComparison: 0 }));
    const trained = await runLudus(['train', 'calc', '--config', config, '--steps', '1', '--out', join(dir, 'runs', 'calc'), '--no-watch', '--threads', '1']);
    expect(trained.code, trained.stderr).toBe(0);
    const lines = (await readFile(join(dir, 'runs', 'calc', 'transcripts.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as TranscriptLine);
    // transcripts.jsonl holds env spans: a turn whose authors name `env` for the calculator's result tokens.
    const called = lines.filter((line) => line.turns.some((turn) => turn.roles.includes('env' as never) && turn.authors.includes(turn.roles.indexOf('env' as never))));
    expect(called.length).toBeGreaterThan(0);
    const line = called[0];

    const served = await serveLudus(['serve', '--runs', join(dir, 'runs'), '--port', '0']);
    try {
      const page = await browser.newPage();
      await page.setViewportSize({ width: 1200, height: 900 });
      await page.goto(served.url);
      await page.waitForSelector('#connection[data-state=open]');
      await page.click(`#finished li[data-match="${line.matchId}"]`);
      await page.waitForSelector('#outcome .finished');
      const env = parseColor(await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--env')));
      const spans = await page.locator('#transcript .tok').evaluateAll((nodes) =>
        nodes.map((node) => {
          const box = node.getBoundingClientRect();
          return { author: (node as HTMLElement).dataset.author, color: getComputedStyle(node).color, background: getComputedStyle(node).backgroundColor, x: box.left + 1, y: box.top + box.height / 2, width: box.width };
        }),
      );
      const envSpans = spans.filter((span) => span.author === 'env' && span.width > 2);
      const solverSpans = spans.filter((span) => span.author === 'solver' && span.width > 2);
      expect(envSpans.length).toBeGreaterThan(0);
      expect(solverSpans.length).toBeGreaterThan(0);
      // Their own colour: the env text colour, on the env background, which no solver token has.
      for (const span of envSpans) expect(colorDistance(parseColor(span.color), env)).toBeLessThan(1);
      const background = parseColor(envSpans[0].background);
      const [atEnv, atSolver] = await Promise.all([renderedColors(browser, page, envSpans.slice(0, 6)), renderedColors(browser, page, solverSpans.slice(0, 6))]);
      expect(atEnv.every((around) => around.some((pixel) => colorDistance(pixel, background) < 12))).toBe(true);
      expect(atSolver.every((around) => around.every((pixel) => colorDistance(pixel, background) >= 12))).toBe(true);
      await page.close();
    } finally {
      await served.stop();
    }
  }, 300_000);
});
