import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TranscriptLine } from '../../engine/trainer/transcript-line.ts';
import type { WireEvent } from '../../server/wire.ts';
import { Spectator } from '../server/hub-clients.ts';
import { serveLudus } from '../server/page/browser.ts';
import { LUDUS_BIN, runLudus } from '../support/cli.ts';

describe('ludus serve', () => {
  describe('having a directory with a recorded run', () => {
    it("should list the run and its matches, replay a match's events from its transcript line, and not outlive an npx that started it", { timeout: 300_000 }, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-serve-'));
      const config = join(dir, 'tiny.json');
      await writeFile(config, JSON.stringify({ problemsPerStep: 1, groupSize: 2, maxNewTokens: 48, validateEvery: 0, finalComparison: 0 }));
      const out = join(dir, 'runs', 'recorded');
      expect((await runLudus(['train', 'tandem', '--config', config, '--steps', '1', '--out', out, '--no-watch', '--threads', '1'])).code).toBe(0);
      const transcripts = await readFile(join(out, 'transcripts.jsonl'), 'utf8');
      const [line] = transcripts.trim().split('\n').map((text) => JSON.parse(text) as TranscriptLine);
      const [turn] = line.turns;
      // Beside it, a copy whose first line is corrupt (skipped with a warning) and one whose last line is torn.
      const broken = join(dir, 'runs', 'broken');
      const torn = join(dir, 'runs', 'torn');
      await cp(out, broken, { recursive: true });
      await writeFile(join(broken, 'transcripts.jsonl'), `{"matchId": ${transcripts}`);
      await cp(out, torn, { recursive: true });
      await writeFile(join(torn, 'transcripts.jsonl'), transcripts.slice(0, -20));

      const served = await serveLudus(['serve', '--runs', join(dir, 'runs'), '--port', '0']);
      try {
        expect(served.stderr()).toContain(`ludus: warning: skipping ${broken}: [LOG_LINE_INVALID] ${join(broken, 'transcripts.jsonl')}:1: not valid JSON`);
        expect(served.stderr()).toContain(`ludus: warning: ${join(torn, 'transcripts.jsonl')}:2: dropped a last line cut short`);
        const spectator = new Spectator(served.url.replace('http:', 'ws:') + 'ws');
        await spectator.opened;
        const snapshot = await spectator.next((message) => message.type === 'snapshot');
        expect(snapshot).toMatchObject({
          runs: [
            { id: 'recorded', game: 'tandem', status: 'recorded', actions: [] },
            { id: 'torn', game: 'tandem', status: 'recorded', actions: [] },
          ],
          metrics: { recorded: [{ step: 1 }] },
        });
        expect(snapshot.type === 'snapshot' && snapshot.runs.map((run) => run.matches)).toEqual([transcripts.trim().split('\n').length, transcripts.trim().split('\n').length - 1]);
        spectator.send({ type: 'matches', run: 'recorded', offset: 0, limit: 500, query: 1 });
        spectator.send({ type: 'matches', run: 'torn', offset: 0, limit: 500, query: 2 });
        const pageOf = async (query: number) => {
          const page = await spectator.next((message) => message.type === 'matches' && message.query === query);
          return page.type === 'matches' ? page.matches.map((match) => match.matchId) : [];
        };
        const [recorded, tornMatches] = [await pageOf(1), await pageOf(2)];
        expect(tornMatches).toHaveLength(recorded.length - 1);
        expect(recorded).toContain(line.matchId);
        spectator.send({ type: 'match', run: 'recorded', matchId: line.matchId });
        const reply = await spectator.next((message) => message.type === 'match');
        const events: readonly WireEvent[] = reply.type === 'match' ? reply.events : [];
        expect(events[0]).toMatchObject({ type: 'match-start', run: 'recorded', matchId: line.matchId });
        const tokens = events.flatMap((event) => (event.type === 'tokens' ? [event] : []));
        expect(tokens.map((event) => event.tokens[0])).toEqual(turn.responseIds);
        expect(tokens.map((event) => event.text).join('')).toBe(turn.text);
        expect(events.find((event) => event.type === 'match-end')).toMatchObject({ type: 'match-end', outcome: line.outcome });
        expect(events.at(-1)).toMatchObject({ type: 'advantage', role: 'senior', policy: 'senior', advantage: line.advantages.senior.advantage });
        spectator.close();
      } finally {
        expect(await served.stop()).toBe(0);
      }

      // Started by npx in the background (npm_command=exec, a shell between) and killed there: npx does not pass the
      // kill on, and the server does not outlive it.
      const shell = spawn('sh', ['-c', `"${process.execPath}" "${LUDUS_BIN}" serve --runs "${out}" --port 0; true`], { env: { ...process.env, npm_command: 'exec' }, stdio: ['ignore', 'ignore', 'pipe'] });
      let printed = '';
      const url = await new Promise<string>((resolve) => shell.stderr.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
        const found = /watch: (http:\S+)/.exec(printed)?.[1];
        if (found) resolve(found);
      }));
      expect((await fetch(url)).status).toBe(200);
      shell.kill('SIGKILL');
      await expect.poll(() => fetch(url).then(() => 'up', () => 'down'), { timeout: 20_000, interval: 250 }).toBe('down');
    });
  });

  describe('having two runs of one name among the directories', () => {
    it('should exit 2 with INPUT_INVALID naming both', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-serve-twice-'));
      const config = join(dir, 'tiny.json');
      await writeFile(config, JSON.stringify({ problemsPerStep: 1, groupSize: 2, maxNewTokens: 8, validateEvery: 0, finalComparison: 0 }));
      expect((await runLudus(['train', 'grpo', '--config', config, '--steps', '1', '--out', join(dir, 'a', 'run'), '--no-watch', '--threads', '1'])).code).toBe(0);
      await cp(join(dir, 'a', 'run'), join(dir, 'b', 'run'), { recursive: true });
      const result = await runLudus(['serve', '--runs', `${join(dir, 'a')},${join(dir, 'b', 'run')}`, '--port', '0']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`[INPUT_INVALID] --runs: ${join(dir, 'a', 'run')} and ${join(dir, 'b', 'run')} are both named "run"`);
    });
  });

  describe('having a directory without runs', () => {
    it('should exit with FILE_NOT_FOUND', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-serve-empty-'));
      const result = await runLudus(['serve', '--runs', dir, '--port', '0']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/\[FILE_NOT_FOUND\]/);
    });
  });
});
