import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Spectator } from '../server/hub-clients.ts';
import { serveLudus } from '../server/page/browser.ts';
import { configFile, runLudus } from '../support/cli.ts';
import { loadTaskFile } from '../../plugins/tasks/jsonl/load-jsonl-task.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';

const DEFAULT_MODEL = resolveModelDir('default');

const tinyConfig = { problemsPerStep: 1, groupSize: 4, maxNewTokens: 96, validateEvery: 0, finalComparison: 0 };

describe('ludus train', () => {
  describe('having the tandem game, the shipped base and a tiny config', () => {
    it('should train, write one metrics line per step and report the run on stdout', async () => {
      const { dir, file } = await configFile({ ...tinyConfig, finalComparison: 6 });
      const out = join(dir, 'run');
      const result = await runLudus(['train', 'tandem', '--config', file, '--steps', '2', '--seed', '3', '--out', out, '--model', 'default', '--no-watch', '--threads', '1']);
      expect(result.stderr).not.toMatch(/\[[A-Z_]+\]/);
      expect(result.code).toBe(0);
      const reported = JSON.parse(result.stdout) as { comparison: { problems: number; trained: { value: number; se: number }; start: { value: number }; difference: { value: number } } };
      expect(reported).toMatchObject({ out, steps: 2, comparison: { role: 'senior', problems: 6 } });
      expect(reported.comparison.difference.value).toBeCloseTo(reported.comparison.trained.value - reported.comparison.start.value, 10);
      // The summary a newcomer reads: did training help, where the files are, how to watch the run again.
      expect(result.stderr).toMatch(/trained tandem for 2 steps in /);
      // Every accuracy says how the answer was written, on which split, of which policy.
      expect(result.stderr).toMatch(/accuracy of senior \(co-written with junior\), test split, 6 held-out problems, one match each on the same seeds:\n {4}policy senior trained \d+\.\d% ± \d+\.\d {3}at the start \d+\.\d% ± \d+\.\d {3}difference [+-]\d+\.\d ± \d+\.\d points/);
      expect(result.stderr).toContain(`the policies in ${out}/checkpoint/policies/senior`);
      // Scored as training scored it: handing off at every word, with the run's response budget.
      expect(result.stderr).toContain(`evaluate it against its base: npx ludus eval --model ${out}/checkpoint/policies/senior --task arithmetic --axes capability,handoff --handoff word --max-new-tokens ${tinyConfig.maxNewTokens} --compare default`);
      // A log is not a terminal: one plain line per step as it ends.
      expect(result.stderr).toMatch(/train tandem step 1\/2 {2}senior reward \d\.\d{3} {2}senior loss /);
      expect(result.stderr).toMatch(/train tandem step 2\/2 .* checkpointed\n/);
      expect(result.stderr).toContain(`watch it again: npx ludus serve --runs ${out}`);
      const lines = (await readFile(join(out, 'metrics.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { step: number });
      expect(lines.map((line) => line.step)).toEqual([1, 2]);
      const state = JSON.parse(await readFile(join(out, 'checkpoint', 'trainer_state.json'), 'utf8')) as { step: number; seed: number };
      expect(state).toMatchObject({ step: 2, seed: 3 });
    });
  });

  describe('having Agon, whose two adapters take turns, and a final comparison', () => {
    it('should say at the end how often A and B, each alone on the same seeds, gave different final answers', async () => {
      const { dir, file } = await configFile({ problemsPerStep: 1, groupSize: 2, validateEvery: 0, finalComparison: 3, knobs: { turnTokens: 32 } });
      const out = join(dir, 'run');
      const result = await runLudus(['train', 'agon', '--config', file, '--steps', '1', '--out', out, '--no-watch', '--threads', '1']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/policies A and B, each alone on the same 3 held-out problems and seeds \(one answer each\): different final answers on [0-3] \(\d+\.\d%\)/);
      const reported = JSON.parse(result.stdout) as { divergence: { policies: string[]; problems: number; samples: number; problems_differing: number } };
      expect(reported.divergence).toMatchObject({ policies: ['A', 'B'], problems: 3, samples: 1 });
    });
  });

  describe('having a JSONL set divided by a task file', () => {
    it('should train on its train split and validate on problems held out of it, never on its test split (it has no validation split)', async () => {
      const { dir, file } = await configFile({});
      const rows = Array.from({ length: 40 }, (_, i) => JSON.stringify({ problem: `What is ${i} plus 2?`, answer: String(i + 2) }));
      await writeFile(join(dir, 'sums.jsonl'), `${rows.join('\n')}\n`);
      const taskFile = join(dir, 'sums.json');
      await writeFile(taskFile, JSON.stringify({ file: 'sums.jsonl', testFraction: 0.25 }));
      await writeFile(file, JSON.stringify({ ...tinyConfig, task: taskFile, validateEvery: 1, validationProblems: 2 }));
      const out = join(dir, 'run');
      const result = await runLudus(['train', 'grpo', '--config', file, '--steps', '1', '--out', out, '--model', DEFAULT_MODEL, '--no-watch', '--threads', '1']);
      expect(result.code, result.stderr).toBe(0);
      const task = await loadTaskFile(taskFile);
      const idsOf = (split: 'train' | 'test') => new Set(task.problems(split, 100).map((problem) => problem.id));
      const played = (await readFile(join(out, 'transcripts.jsonl'), 'utf8')).trim().split('\n').map((line) => (JSON.parse(line) as { problemId: string }).problemId);
      expect(played.every((id) => idsOf('train').has(id))).toBe(true);
      const [validation] = (await readFile(join(out, 'validation.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { problems: number; split: string });
      expect(validation).toMatchObject({ problems: 2, split: 'validation', held_out_of_train: 2, role: 'senior', policy: 'senior', written: 'solo' });
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
      // The page and the run agree at the end: the run's last status reached the spectator before the server closed.
      expect(spectator.events.filter((event) => event.type === 'run-status').map((event) => event.type === 'run-status' && event.status)).toEqual(['finished']);
    });
  });

  describe('having a two-role sequential game from a plugin module', () => {
    // Each training has a timeout of its own: the straight run here, the split one in the test that resumes it.
    let dir: string;
    let file: string;
    let straight: string;
    const args = (out: string, steps: number) => ['train', 'proposer-critic', '--plugin', 'examples/proposer-critic/proposer-critic.ts', '--config', file, '--steps', String(steps), '--out', out, '--no-watch', '--threads', '1'];
    beforeAll(async () => {
      ({ dir, file } = await configFile({ problemsPerStep: 1, groupSize: 2, checkpointEvery: 1, validateEvery: 0, finalComparison: 0 }));
      straight = join(dir, 'straight');
      const trained = await runLudus(args(straight, 2));
      expect(trained.code, trained.stderr).toBe(0);
    });

    it("should train both roles' policies with their own optimizers, swapping roles each step", async () => {
      const metrics = (await readFile(join(straight, 'metrics.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { seats: Record<string, string>; policies: Record<string, unknown> });
      expect(metrics.map((line) => line.seats)).toEqual([
        { proposer: 'alice', critic: 'bob' },
        { proposer: 'bob', critic: 'alice' },
      ]);
      expect(metrics.map((line) => Object.keys(line.policies))).toEqual([
        ['alice', 'bob'],
        ['alice', 'bob'],
      ]);
    });

    it('should resume exactly from --out alone, and refuse a config that really differs naming every differing field', async () => {
      const resumed = join(dir, 'resumed');
      expect((await runLudus(args(resumed, 1))).code).toBe(0);
      // Resumed with --out alone: the game's plugin and the config are read back from run.json.
      const again = await runLudus(['train', 'proposer-critic', '--out', resumed, '--resume', '--steps', '2', '--no-watch', '--threads', '1']);
      expect(again.code, again.stderr).toBe(0);
      for (const policy of ['alice', 'bob']) {
        const weights = (out: string) => readFile(join(out, 'checkpoint', 'policies', policy, 'model.safetensors'));
        expect((await weights(resumed)).equals(await weights(straight))).toBe(true);
      }
      const other = join(dir, 'other.json');
      await writeFile(other, JSON.stringify({ problemsPerStep: 1, groupSize: 4, checkpointEvery: 1, validateEvery: 0, finalComparison: 0, temperature: 0.7 }));
      const refused = await runLudus(['train', 'proposer-critic', '--plugin', 'examples/proposer-critic/proposer-critic.ts', '--config', other, '--out', resumed, '--resume', '--steps', '3', '--no-watch']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/\[CONFIG_INVALID\] .*: the checkpoint was made with a different training config: groupSize \(checkpoint 2, now 4\); temperature \(checkpoint 1, now 0\.7\); resume with the run's own config/);
    });
  });

  describe('having bad input', () => {
    it('should exit 2 with a coded error naming what is wrong, writing nothing to the run directory', async () => {
      const { dir, file } = await configFile({ ...tinyConfig, knobs: { juniorImitation: -0.5 } });
      const cases: [string[], RegExp][] = [
        [['train', 'tandem', '--config', file], /\[CONFIG_INVALID\].*tandem knobs.*juniorImitation/],
        [['train', 'chess'], /\[CONFIG_INVALID\] no game "chess" \(known: tandem, grpo, kl-reg, tango, agon, tictactoe, kuhn-poker, kuhn-poker-match, negotiation, calc, leduc-holdem, liars-dice, connect-four, trade\)/],
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
      expect(await readdir(dir)).toEqual(['config.json']);
    });
  });

  describe('having --device webgpu on a machine without a usable adapter', () => {
    it('should exit 2 with DEVICE_UNAVAILABLE saying what is missing, before writing the run', async (context) => {
      const { ensureDevice } = await import('../../native/ort.ts');
      if (await ensureDevice('webgpu').then(() => true, () => false)) context.skip();
      const { dir } = await configFile(tinyConfig);
      const out = join(dir, 'run');
      const refused = await runLudus(['train', 'tandem', '--device', 'webgpu', '--steps', '1', '--out', out, '--no-watch']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/\[DEVICE_UNAVAILABLE\] --device webgpu: .*missing: /);
      await expect(readFile(join(out, 'run.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    });
  });

  describe('having an --out that already holds a run, without --resume', () => {
    it('should exit 2 with RUN_DIR_NOT_EMPTY saying how to go on, and leave the run as it was', async () => {
      const { dir, file } = await configFile(tinyConfig);
      const out = join(dir, 'run');
      await mkdir(out);
      await writeFile(join(out, 'metrics.jsonl'), '{"step":1}\n');
      const refused = await runLudus(['train', 'tandem', '--config', file, '--steps', '1', '--out', out, '--no-watch', '--threads', '1']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`[RUN_DIR_NOT_EMPTY] ${out}: already holds files (metrics.jsonl); it stopped before its first checkpoint: start it over with --restart, or give a new or empty --out`);
      expect(await readdir(out)).toEqual(['metrics.jsonl']);
      expect(await readFile(join(out, 'metrics.jsonl'), 'utf8')).toBe('{"step":1}\n');
    });
  });

  describe('having --resume where no run was checkpointed', () => {
    it('should exit 2 with NOTHING_TO_RESUME and create nothing', async () => {
      const { dir, file } = await configFile(tinyConfig);
      const refused = await runLudus(['train', 'tandem', '--config', file, '--steps', '1', '--out', join(dir, 'run'), '--resume', '--no-watch', '--threads', '1']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('[NOTHING_TO_RESUME]');
      expect(await readdir(dir)).toEqual(['config.json']);
    });
  });
});
