import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLudus } from '../../support/cli.ts';
import { launchChromium, serveLudus } from './browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('the viewer page in Chromium, having a recorded TicTacToe self-play run', () => {
  it("should draw the board after every move from the game's renderer, and mark the move that forfeited", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ludus-world-viewer-'));
    const config = join(dir, 'tiny.json');
    await writeFile(config, JSON.stringify({ problemsPerStep: 2, groupSize: 2 }));
    const trained = await runLudus(['train', 'tictactoe', '--config', config, '--steps', '1', '--out', join(dir, 'runs', 'ttt'), '--no-watch', '--threads', '1']);
    expect(trained.code).toBe(0);
    const [line] = (await readFile(join(dir, 'runs', 'ttt', 'transcripts.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { matchId: string; turns: { world: { verdict: string; move: string | null }; scene: { grid: string[][] } }[] });
    expect(line.turns.every((turn) => turn.scene.grid.length === 3)).toBe(true);

    const served = await serveLudus(['serve', '--runs', join(dir, 'runs'), '--port', '0']);
    try {
      const page = await browser.newPage();
      await page.goto(served.url);
      await page.waitForSelector('#runs li[data-run="ttt"][data-status="recorded"]');
      await page.click(`#finished li[data-match="${line.matchId}"]`);
      // Scrubbed to the end of what has arrived, again while the match is still arriving (its end may come later
      // than the first scrub on a loaded machine), until every turn's board is drawn.
      await page.waitForFunction((n) => {
        const scrub = document.querySelector<HTMLInputElement>('#scrub')!;
        if (scrub.value !== scrub.max) {
          scrub.value = scrub.max;
          scrub.dispatchEvent(new Event('input', { bubbles: true }));
        }
        return document.querySelectorAll('#transcript .world-grid').length === n;
      }, line.turns.length);
      const boards = await page.evaluate(() => Array.from(document.querySelectorAll('#transcript .world-grid'), (table) => Array.from(table.querySelectorAll('tr'), (tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent))));
      expect(boards).toEqual(line.turns.map((turn) => turn.scene.grid));
      const moves = await page.locator('#transcript .world-move').allTextContents();
      expect(moves.map((text) => text.startsWith('move '))).toEqual(line.turns.map((turn) => turn.world.verdict === 'legal'));
      await page.close();
    } finally {
      await served.stop();
    }
  }, 300_000);
});
