import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Spectator } from '../server/hub-clients.ts';
import { serveLudus } from '../server/page/browser.ts';
import { runLudus } from '../support/cli.ts';

const tinyConfig = { problemsPerStep: 1, groupSize: 4, maxNewTokens: 96, validateEvery: 0 };

async function configFile(config: object): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'ludus-train-cli-'));
  const file = join(dir, 'config.json');
  await writeFile(file, JSON.stringify(config));
  return { dir, file };
}

describe('ludus train', () => {
  describe('having the tandem game, the shipped base and a tiny config', () => {
    it('should train, write one metrics line per step and report the run on stdout', async () => {
      const { dir, file } = await configFile(tinyConfig);
      const out = join(dir, 'run');
      const result = await runLudus(['train', 'tandem', '--config', file, '--steps', '2', '--seed', '3', '--out', out, '--model', 'default', '--no-watch', '--threads', '1']);
      expect(result.stderr).not.toMatch(/\[[A-Z_]+\]/);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ out, steps: 2 });
      const lines = (await readFile(join(out, 'metrics.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { step: number });
      expect(lines.map((line) => line.step)).toEqual([1, 2]);
      const state = JSON.parse(await readFile(join(out, 'checkpoint', 'trainer_state.json'), 'utf8')) as { step: number; seed: number };
      expect(state).toMatchObject({ step: 2, seed: 3 });
    });
  });

  describe('having --watch (the default) on a free port', () => {
    it('should print the URL and control token, stream the run to a spectator and exit when training ends', async () => {
      const { dir, file } = await configFile(tinyConfig);
      const served = await serveLudus(['train', 'grpo', '--config', file, '--steps', '2', '--out', join(dir, 'run'), '--port', '0', '--threads', '1']);
      expect(served.token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      const spectator = new Spectator(served.url.replace('http:', 'ws:') + 'ws');
      await spectator.opened;
      const code = await served.exited;
      expect(code).toBe(0);
      expect(JSON.parse(served.stdout())).toMatchObject({ steps: 2 });
      await spectator.closed;
      expect(spectator.messages[0].type).toBe('snapshot');
      const seqs = spectator.events.map((event) => event.seq);
      expect(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1])).toBe(true);
      const steps = spectator.events.flatMap((event) => (event.type === 'train-step' ? [event.step] : []));
      expect(steps.at(-1)).toBe(2);
      expect(spectator.events.some((event) => event.type === 'tokens' && event.tokens.length === 1 && event.run === 'run')).toBe(true);
    });
  });

  describe('having a two-role sequential game from a plugin module', () => {
    it('should train both roles\' policies with their own optimizers, swapping roles each step, and resume exactly', async () => {
      const { dir, file } = await configFile({ problemsPerStep: 1, groupSize: 2, checkpointEvery: 1, validateEvery: 0 });
      const args = (out: string, steps: number) => ['train', 'proposer-critic', '--plugin', 'examples/proposer-critic/proposer-critic.ts', '--config', file, '--steps', String(steps), '--out', out, '--no-watch', '--threads', '1'];
      const straight = join(dir, 'straight');
      expect((await runLudus(args(straight, 2))).code).toBe(0);
      const metrics = (await readFile(join(straight, 'metrics.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { seats: Record<string, string>; policies: Record<string, unknown> });
      expect(metrics.map((line) => line.seats)).toEqual([
        { proposer: 'alice', critic: 'bob' },
        { proposer: 'bob', critic: 'alice' },
      ]);
      expect(metrics.map((line) => Object.keys(line.policies))).toEqual([
        ['alice', 'bob'],
        ['alice', 'bob'],
      ]);
      const resumed = join(dir, 'resumed');
      expect((await runLudus(args(resumed, 1))).code).toBe(0);
      expect((await runLudus([...args(resumed, 2), '--resume'])).code).toBe(0);
      for (const policy of ['alice', 'bob']) {
        const weights = (out: string) => readFile(join(out, 'checkpoint', 'policies', policy, 'model.safetensors'));
        expect((await weights(resumed)).equals(await weights(straight))).toBe(true);
      }
    });
  });

  describe('having bad input', () => {
    it('should exit 2 with a coded error naming what is wrong, writing nothing to the run directory', async () => {
      const { dir, file } = await configFile({ ...tinyConfig, knobs: { juniorImitation: -0.5 } });
      const cases: [string[], RegExp][] = [
        [['train', 'tandem', '--config', file], /\[CONFIG_INVALID\].*tandem knobs.*juniorImitation/],
        [['train', 'chess'], /\[CONFIG_INVALID\] no game "chess" \(known: tandem, grpo, kl-reg\)/],
        [['train', 'tandem', '--plugin', join(dir, 'missing.ts')], /\[PLUGIN_LOAD_FAILED\] plugin .*missing\.ts: no such file/],
        [['train', 'tandem', '--model', join(dir, 'no-model')], /\[POLICY_INVALID\] policy "senior": .*no-model does not exist/],
      ];
      for (const [args, message] of cases) {
        const out = join(dir, 'run');
        const refused = await runLudus([...args, '--steps', '1', '--out', out, '--no-watch']);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toMatch(message);
        await expect(readFile(join(out, 'run.json'))).rejects.toMatchObject({ code: 'ENOENT' });
      }
    });
  });
});
