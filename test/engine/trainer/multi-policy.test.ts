import { readFile, stat } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MetricsLine } from '../../../engine/trainer/metrics-line.ts';
import type { TranscriptLine } from '../../../engine/trainer/transcript-line.ts';
import type { TrainConfigInput } from '../../../engine/trainer/train-config.ts';
import { readOptimizer } from '../../../engine/trainer/training-checkpoint.ts';
import { rejection } from '../../support/errors.ts';
import { jsonl, runTraining, tinyConfig } from '../../support/training.ts';

const RELAY = new URL('../../fixtures/plugins/relay.ts', import.meta.url).pathname;

/** The relay game (two roles, two policies alice and bob, both trained) at a tiny scale. */
const relay = (overrides: Partial<TrainConfigInput> = {}) =>
  tinyConfig({ game: 'relay', plugins: [RELAY], problemsPerStep: 2, groupSize: 2, steps: 3, checkpointEvery: 1, ...overrides });

const policyFile = (out: string, policy: string, file: string) => readFile(join(out, 'checkpoint', 'policies', policy, file));

describe('the trainer with two trainable policies (a two-role sequential game from a plugin module)', () => {
  // One 4-step run serves both the seating checks and the resume comparison (it was a 3-step run of its own).
  const config = relay({ steps: 4, checkpointEvery: 2 });
  let straight: { out: string };
  beforeAll(async () => {
    straight = await runTraining(config);
  });

  describe('having alice and bob swap roles every step', () => {
    it('should seat them as the rotation says, update both with their own optimizers, and keep both in the checkpoint', async () => {
      const { out } = straight;
      const metrics = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
      expect(metrics.map((line) => line.seats)).toEqual([
        { opener: 'alice', closer: 'bob' },
        { opener: 'bob', closer: 'alice' },
        { opener: 'alice', closer: 'bob' },
        { opener: 'bob', closer: 'alice' },
      ]);
      for (const line of metrics) {
        expect(line.trains).toEqual(['alice', 'bob']);
        expect(Object.keys(line.policies).sort()).toEqual(['alice', 'bob']);
        expect(Object.keys(line.roles).sort()).toEqual(['closer', 'opener']);
      }
      const alice = await readOptimizer(join(out, 'checkpoint', 'policies', 'alice', 'optimizer.safetensors'));
      const bob = await readOptimizer(join(out, 'checkpoint', 'policies', 'bob', 'optimizer.safetensors'));
      expect([alice.step, bob.step]).toEqual([4, 4]);
      expect((await policyFile(out, 'alice', 'model.safetensors')).equals(await policyFile(out, 'bob', 'model.safetensors'))).toBe(false);
      const [line] = await jsonl<TranscriptLine>(join(out, 'transcripts.jsonl'));
      expect(line.turns.map((turn) => [turn.role, turn.finish !== undefined, turn.logprobs.length === turn.responseIds.length])).toEqual([
        ['opener', true, true],
        ['closer', true, true],
      ]);
    });
  });

  describe('having run 4 steps straight, or 2, stopped, and resumed for 2', () => {
    it('should end bit-identical: both policies\' weights and moments, the metrics and the transcripts', async () => {
      const split = await runTraining(config, { stopAfter: 2 });
      await runTraining(config, { out: split.out, resume: true });
      for (const policy of ['alice', 'bob']) {
        for (const file of ['model.safetensors', 'optimizer.safetensors']) expect((await policyFile(split.out, policy, file)).equals(await policyFile(straight.out, policy, file))).toBe(true);
      }
      const withoutTime = (lines: MetricsLine[]) => lines.map(({ seconds: _seconds, ...rest }) => rest);
      expect(withoutTime(await jsonl(join(split.out, 'metrics.jsonl')))).toEqual(withoutTime(await jsonl(join(straight.out, 'metrics.jsonl'))));
      expect(await jsonl(join(split.out, 'transcripts.jsonl'))).toEqual(await jsonl(join(straight.out, 'transcripts.jsonl')));
    });
  });

  describe('having an interleaved schedule, alice 2 steps then bob 1', () => {
    it('should train only the policy of the phase, each policy\'s optimizer counting its own steps', async () => {
      const { out } = await runTraining(relay({ knobs: { interleave: [2, 1] } }));
      const metrics = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
      expect(metrics.map((line) => line.trains)).toEqual([['alice'], ['alice'], ['bob']]);
      expect(metrics.map((line) => Object.keys(line.policies))).toEqual([['alice'], ['alice'], ['bob']]);
      const steps = async (policy: string) => (await readOptimizer(join(out, 'checkpoint', 'policies', policy, 'optimizer.safetensors'))).step;
      expect([await steps('alice'), await steps('bob')]).toEqual([2, 1]);
    });
  });

  describe('having groups that share their first turn', () => {
    it('should play that turn once per group and the rest separately', async () => {
      const { out } = await runTraining(relay({ steps: 1, groupSize: 3, knobs: { shared: 1 } }));
      const lines = await jsonl<TranscriptLine>(join(out, 'transcripts.jsonl'));
      for (let g = 0; g < lines.length; g += 3) {
        const group = lines.slice(g, g + 3);
        expect(new Set(group.map((line) => JSON.stringify(line.turns[0].responseIds))).size).toBe(1);
        expect(new Set(group.map((line) => line.turns[1].rowSeed)).size).toBe(3);
      }
    });
  });

  describe('having zero-variance groups dropped (Agon) rather than zeroed', () => {
    it('should count every rollout of those groups as dropped', async () => {
      const { out } = await runTraining(relay({ steps: 2, knobs: { drop: true, reward: 'correct' } }));
      const metrics = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
      for (const line of metrics) {
        for (const role of ['opener', 'closer']) expect(line.roles[role].dropped).toBe(2 * line.roles[role].zero_variance_groups!);
      }
      expect(metrics.reduce((sum, line) => sum + line.roles.closer.dropped!, 0)).toBeGreaterThan(0);
    });
  });

  describe('having a policy binding the game cannot take', () => {
    it('should refuse it with a coded error naming the policy before anything is written to the run directory', async () => {
      const cases: [Partial<TrainConfigInput>, string, RegExp][] = [
        [{ policies: { carol: {} } }, 'CONFIG_INVALID', /game "relay" has no policy "carol"/],
        [{ policies: { bob: { trainable: false } } }, 'CONFIG_INVALID', /policies\.bob: the rotation "alternate-every-step" of game "relay" trains "bob", so it cannot be frozen/],
        [{ policies: { bob: { init: '/nowhere/model' } } }, 'POLICY_INVALID', /policy "bob": \/nowhere\/model does not exist/],
        [{ advantage: 'ppo' }, 'CONFIG_INVALID', /no advantage estimator "ppo"/],
      ];
      for (const [overrides, code, message] of cases) {
        const out = join(await mkdtemp(join(tmpdir(), 'ludus-refused-')), 'run');
        expect(await rejection(runTraining(relay(overrides), { out }))).toMatchObject({ code, message: expect.stringMatching(message) });
        await expect(stat(out)).rejects.toMatchObject({ code: 'ENOENT' });
      }
    });
  });
});

describe('the trainer on a game that labels its rollouts (Agon: draft_correct, converted)', () => {
  it("should report each label's mean per role and step in metrics.jsonl, as the transcripts' labels give it", async () => {
    const { out } = await runTraining(tinyConfig({ game: 'agon', steps: 2, problemsPerStep: 2, groupSize: 2, checkpointEvery: 2, knobs: { turnTokens: 24 } }));
    const metrics = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
    const transcripts = await jsonl<TranscriptLine>(join(out, 'transcripts.jsonl'));
    for (const line of metrics) {
      const labels = transcripts.filter((t) => t.step === line.step).map((t) => t.labels!.challenger);
      const mean = (name: string) => labels.reduce((sum, l) => sum + (l?.[name] ?? Number.NaN), 0) / labels.length;
      expect(line.roles.challenger.converted).toBeCloseTo(mean('converted'), 12);
      expect(line.roles.challenger.draft_correct).toBeCloseTo(mean('draft_correct'), 12);
      expect(line.roles.drafter.converted).toBeUndefined();
    }
  });
});
