import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configFile, LUDUS_BIN, runLudus, type CliResult } from '../support/cli.ts';
import { readEventFile, type ReadEvent } from '../support/tensorboard-reader.ts';

const tinyConfig = { problemsPerStep: 1, groupSize: 2, maxNewTokens: 48, validateEvery: 0, finalComparison: 0 };
const INDEX = fileURLToPath(new URL('../../index.ts', import.meta.url));

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/**
 * `ludus …args` in a child process; `signal` is sent once stderr shows `when` (a line of the plain per-step log), and
 * `again` (a second signal) once stderr shows `thenWhen`. A process ended by a signal exits 128 + its number, as a
 * shell reports it.
 */
function runUntil(args: string[], when: RegExp, signal: NodeJS.Signals, again?: { when: RegExp; signal: NodeJS.Signals }): Promise<CliResult & { signalledAt: string; killedBy: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LUDUS_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let signalledAt = '';
    let twice = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!signalledAt && when.test(stderr)) {
        signalledAt = stderr;
        child.kill(signal);
      } else if (signalledAt && again && !twice && again.when.test(stderr.slice(signalledAt.length))) {
        twice = true;
        child.kill(again.signal);
      }
    });
    child.on('error', reject);
    child.on('close', (code, killedBy) => resolve({ code: code ?? 128 + (SIGNAL_NUMBERS[killedBy!] ?? 0), stdout, stderr, signalledAt, killedBy }));
  });
}

/** The command the run printed after "with:", run as printed (without `npx`). */
function printedCommand(stderr: string): string[] {
  const line = /with:\n {2}npx ludus (.+)\n/.exec(stderr)?.[1];
  expect(line, stderr).toBeDefined();
  return line!.split(' ').map((arg) => arg.replace(/^'(.*)'$/, '$1'));
}

const metricSteps = async (out: string) => (await readFile(join(out, 'metrics.jsonl'), 'utf8')).trim().split('\n').map((line) => (JSON.parse(line) as { step: number }).step);
const checkpointStep = async (out: string) => (JSON.parse(await readFile(join(out, 'checkpoint', 'trainer_state.json'), 'utf8')) as { step: number }).step;

describe('ludus train, stopped and started again', () => {
  describe('having Ctrl-C (SIGINT) at step 3 of a tandem run that checkpoints every 10 steps', () => {
    it('should checkpoint at the next step boundary, exit 130 printing the command, and that command should finish the run', async () => {
      const { dir, file } = await configFile({ ...tinyConfig, checkpointEvery: 10 });
      const out = join(dir, 'run');
      const stopped = await runUntil(['train', 'tandem', '--config', file, '--steps', '5', '--out', out, '--no-watch', '--threads', '1'], /step 3\/5/, 'SIGINT');
      expect(stopped.code, stopped.stderr).toBe(130);
      const reached = await checkpointStep(out);
      // The step under way when the signal came is finished and checkpointed; no later one is begun.
      expect(reached === 3 || reached === 4).toBe(true);
      expect(stopped.stderr).toContain(`stopped (SIGINT) after step ${reached} of 5; the checkpoint holds step ${reached}`);
      expect(JSON.parse(stopped.stdout)).toMatchObject({ out, steps: reached, stopped: true, checkpointed: reached });
      const command = printedCommand(stopped.stderr);
      expect(command).toEqual(['train', 'tandem', '--out', out, '--resume']);
      const resumed = await runLudus([...command, '--no-watch', '--threads', '1']);
      expect(resumed.code, resumed.stderr).toBe(0);
      // It says where it took over, and counts the steps this process ran apart from the run's.
      expect(resumed.stderr).toContain(`train tandem: resuming from step ${reached} of 5 in ${out}`);
      expect(resumed.stderr).toContain(`trained tandem for 5 steps (${5 - reached} in this process, resumed from step ${reached}) in `);
      expect(await metricSteps(out)).toEqual([1, 2, 3, 4, 5]);
      expect(await checkpointStep(out)).toBe(5);
      // TensorBoard beside metrics.jsonl: one event file per process, the second marking where it took over.
      const files = (await readdir(out)).filter((name) => name.startsWith('events.out.tfevents.')).sort();
      expect(files).toHaveLength(2);
      const [before, after] = await Promise.all(files.map((name) => readEventFile(join(out, name))));
      const stepsOf = (events: ReadEvent[]) => events.filter((e) => e.scalars?.['role/senior/reward_mean'] !== undefined).map((e) => e.step);
      const [earlier, later] = stepsOf(before)[0] === 1 ? [before, after] : [after, before];
      expect(stepsOf(earlier)).toEqual(Array.from({ length: reached }, (_, i) => i + 1));
      expect(later.find((e) => e.sessionStatus !== undefined)).toMatchObject({ step: reached, sessionStatus: 1 });
      expect(stepsOf(later)).toEqual(Array.from({ length: 5 - reached }, (_, i) => reached + i + 1));
      const metrics = JSON.parse((await readFile(join(out, 'metrics.jsonl'), 'utf8')).split('\n')[0]) as { roles: { senior: { reward_mean: number } } };
      expect(earlier.find((e) => e.step === 1)!.scalars!['role/senior/reward_mean']).toBeCloseTo(metrics.roles.senior.reward_mean, 6);
    });
  });

  describe('having SIGTERM before the first step ends', () => {
    it('should say nothing was checkpointed and print a --restart command that starts the run over in place', async () => {
      const { dir, file } = await configFile({ ...tinyConfig, checkpointEvery: 10 });
      const out = join(dir, 'run');
      const stopped = await runUntil(['train', 'tandem', '--config', file, '--steps', '2', '--out', out, '--no-watch', '--threads', '1'], /train tandem: 2 steps into/, 'SIGTERM');
      expect(stopped.code, stopped.stderr).toBe(143);
      expect(stopped.stderr).toContain('before the first step ended; nothing was checkpointed');
      const command = printedCommand(stopped.stderr);
      expect(command.at(-1)).toBe('--restart');
      const restarted = await runLudus(command);
      expect(restarted.code, restarted.stderr).toBe(0);
      expect(await metricSteps(out)).toEqual([1, 2]);
    });
  });

  describe('having Ctrl-C twice in the middle of a step', () => {
    it('should stop at once, by the signal, with no native abort, naming what the checkpoint holds; the printed command finishes the run', async () => {
      const { dir, file } = await configFile({ ...tinyConfig, checkpointEvery: 1 });
      const out = join(dir, 'run');
      const stopped = await runUntil(['train', 'tandem', '--config', file, '--steps', '2', '--out', out, '--no-watch', '--threads', '1'], /step 1\/2 .*checkpointed/, 'SIGINT', { when: /SIGINT: stopping after step/, signal: 'SIGINT' });
      expect(stopped.killedBy, stopped.stderr).toBe('SIGINT');
      expect(stopped.code).toBe(130);
      expect(stopped.stderr).not.toMatch(/terminate called|Napi::Error|Aborted|core dumped/);
      expect(stopped.stderr).toMatch(/SIGINT again: quitting now, during step 2\. The checkpoint holds step 1; continue with: npx ludus train tandem --out \S+ --resume/);
      expect(await checkpointStep(out)).toBe(1);
      const command = /continue with: npx ludus (.+)\n/.exec(stopped.stderr)![1]!.split(' ');
      const resumed = await runLudus([...command, '--no-watch', '--threads', '1']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(await metricSteps(out)).toEqual([1, 2]);
    });
  });

  describe('having a run killed outright (SIGKILL) after step 1, before its first checkpoint', () => {
    it('should not block its own restart: both refusals point at --restart, which reruns it from run.json alone', async () => {
      const { dir, file } = await configFile({ ...tinyConfig, checkpointEvery: 10 });
      const out = join(dir, 'run');
      const killed = await runUntil(['train', 'tandem', '--config', file, '--steps', '2', '--out', out, '--no-watch', '--threads', '1'], /step 1\/2/, 'SIGKILL');
      expect(killed.code).toBe(137);
      const again = await runLudus(['train', 'tandem', '--config', file, '--steps', '2', '--out', out, '--no-watch']);
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(/\[RUN_DIR_NOT_EMPTY\] .*it stopped before its first checkpoint: start it over with --restart/);
      const resume = await runLudus(['train', 'tandem', '--out', out, '--resume', '--no-watch']);
      expect(resume.code).toBe(2);
      expect(resume.stderr).toMatch(/\[NOTHING_TO_RESUME\] .*start it over in place with --restart instead of --resume/);
      const restarted = await runLudus(['train', 'tandem', '--out', out, '--restart', '--no-watch', '--threads', '1']);
      expect(restarted.code, restarted.stderr).toBe(0);
      expect(await metricSteps(out)).toEqual([1, 2]);
      expect(await checkpointStep(out)).toBe(2);
    });
  });

});

/** A user's plugin module in its own directory (an ESM package), a one-role game whose reward rule is `reward` (source text). */
async function userGame(reward: string): Promise<{ dir: string; plugin: string; file: string }> {
  const { dir, file } = await configFile({ ...tinyConfig, checkpointEvery: 10 });
  const plugin = join(dir, 'my-game.ts');
  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  await writeFile(
    plugin,
    [
      `import { CoDecoding, defineGame, definePlugin } from ${JSON.stringify(INDEX)};`,
      '',
      'const game = () =>',
      "  defineGame({ id: 'my-game', roles: ['writer'], protocol: CoDecoding.solo('writer'), trainable: ['writer'],",
      `    rewards: ${reward},`,
      '  });',
      '',
      "export default definePlugin({ name: 'my-plugin', ludus: '^0.1.0', games: [{ name: 'my-game', create: game }] });",
      '',
    ].join('\n'),
  );
  return { dir, plugin, file };
}

// NaN rewards, a role left out and the other mistakes are unit-tested in test/engine/match/checked-rewards.test.ts;
// here the whole way, from a user's plugin file to the CLI's exit 2.
describe('ludus train on a user game whose reward rule is wrong', () => {
  const cases: [string, string, RegExp][] = [
    ['throws', "() => { throw new Error('no verdict parsed') }", /\[REWARD_FAILED\] game "my-game": its reward rule threw while scoring match step-0\/[^ ]+ \(roles writer\) \((?<file>\/[^:]+my-game\.ts):5\): Error: no verdict parsed/],
  ];
  for (const [what, reward, message] of cases) {
    it(`should name the game, the role, the file and the line on the first match when it ${what}`, async () => {
      const { dir, plugin, file } = await userGame(reward);
      const result = await runLudus(['train', 'my-game', '--plugin', plugin, '--config', file, '--steps', '3', '--out', join(dir, 'run'), '--no-watch', '--threads', '1']);
      expect(result.code, result.stderr).toBe(2);
      const match = message.exec(result.stderr);
      expect(match, result.stderr).not.toBeNull();
      expect(match!.groups!.file).toBe(plugin);
      expect(result.stderr).not.toMatch(/step 1\//);
    });
  }
});
