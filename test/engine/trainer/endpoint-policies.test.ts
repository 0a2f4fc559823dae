import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composePlugins } from '../../../composition/compose.ts';
import { LudusError } from '../../../core/errors.ts';
import { gameFor } from '../../../engine/trainer/run-pieces.ts';
import { planPolicies } from '../../../engine/trainer/policy-plan.ts';
import type { MetricsLine } from '../../../engine/trainer/metrics-line.ts';
import type { TranscriptLine } from '../../../engine/trainer/transcript-line.ts';
import type { ModelServer } from '../../../server/model-server/model-server.ts';
import { startTestModelServer } from '../../support/model-server.ts';
import { TEST_TOKEN } from '../../support/server-token.ts';
import { jsonl, runTraining, tinyConfig } from '../../support/training.ts';

const TOKEN_ENV = 'ENDPOINT_POLICY_TEST_TOKEN';

describe('a frozen policy behind an endpoint, seated in a training run', () => {
  describe('having games that would read its log-probabilities', () => {
    const refusal = async (config: Parameters<typeof tinyConfig>[0]) => {
      const parsed = tinyConfig(config);
      try {
        planPolicies(gameFor(await composePlugins(), parsed), parsed);
      } catch (error) {
        if (LudusError.is(error, 'CONFIG_INVALID')) return error.message;
        throw error;
      }
      throw new Error('not refused');
    };
    const endpoint = { url: 'http://127.0.0.1:9/v1', model: 'm' };

    it("should refuse it as tandem's junior, saying word handoff needs each token's log-probability", async () => {
      await expect(refusal({ game: 'tandem', policies: { junior: { endpoint } } })).resolves.toContain(
        "policies.junior: a policy behind an endpoint cannot co-write game \"tandem\"'s turns token by token: word handoff needs each author's log-probability of every token",
      );
    });

    it('should seat it as tandem\'s junior where the partners take turns a step each (handoff step)', async () => {
      const parsed = tinyConfig({ game: 'tandem', knobs: { handoff: 'step' }, policies: { junior: { endpoint } } });
      const plan = planPolicies(gameFor(await composePlugins(), parsed), parsed);
      expect(plan.find(({ spec }) => spec.name === 'junior')).toEqual({ spec: expect.objectContaining({ endpoint: expect.objectContaining({ url: endpoint.url }) }) });
    });

    it('should refuse it where the rotation trains it', async () => {
      await expect(refusal({ game: 'grpo', policies: { senior: { endpoint } } })).resolves.toContain('is frozen, and the rotation');
    });

    it('should refuse it as the reference of a KL term', async () => {
      await expect(refusal({ game: 'kl-reg', policies: { junior: { endpoint } } })).resolves.toMatch(/cannot co-write|KL term toward/);
    });
  });

  describe('having `ludus serve-model` on loopback', () => {
    let world: ModelServer;
    let judge: ModelServer;
    let arithmetic: ModelServer;
    beforeAll(async () => {
      process.env[TOKEN_ENV] = TEST_TOKEN;
      [world, judge, arithmetic] = await Promise.all([startTestModelServer({ task: 'world' }), startTestModelServer({ model: 'models/arithmetic-judge', task: 'arithmetic' }), startTestModelServer()]);
    }, 60_000);
    afterAll(async () => {
      delete process.env[TOKEN_ENV];
      await world?.close();
      await judge?.close();
      await arithmetic?.close();
    });
    const served = (server: ModelServer) => ({ url: `${server.url}/v1`, model: 'base', tokenEnv: TOKEN_ENV, api: 'completions' as const });

    it("should play a world game's opponent seat, its requests and tokens in the step's metrics", async () => {
      const config = tinyConfig({ game: 'tictactoe', task: 'world', knobs: { play: 'two-policy', learn: ['first'] }, steps: 2, problemsPerStep: 2, groupSize: 2, policies: { second: { endpoint: served(world) } } });
      const { out } = await runTraining(config);
      const metrics = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
      expect(metrics).toHaveLength(2);
      for (const line of metrics) {
        expect(line.trains).toEqual(['first']);
        expect(line.endpoints?.second.endpoint_calls).toBeGreaterThan(0);
        expect(line.endpoints?.second.endpoint_completion_tokens).toBeGreaterThan(0);
      }
      const transcripts = await jsonl<TranscriptLine>(join(out, 'transcripts.jsonl'));
      expect(transcripts.some((line) => line.turns.some((turn) => turn.role === 'second' && turn.responseIds.length > 0))).toBe(true);
    }, 180_000);

    it("should judge as RL Tango's frozen verifier (fixed-verifier), the generator learning from its verdicts", async () => {
      const config = tinyConfig({ game: 'tango', task: 'arithmetic', model: 'models/arithmetic-judge', knobs: { ablation: 'fixed-verifier', verifierWarmup: 0, verifierTokens: 96 }, steps: 1, problemsPerStep: 1, groupSize: 2, maxNewTokens: 96, policies: { verifier: { endpoint: served(judge) } } });
      const { out } = await runTraining(config);
      const [line] = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
      expect(line.trains).toEqual(['generator']);
      expect(line.endpoints?.verifier.endpoint_calls).toBe(2);
      const transcripts = await jsonl<TranscriptLine>(join(out, 'transcripts.jsonl'));
      expect(transcripts.every((match) => match.turns.some((turn) => turn.role === 'verifier'))).toBe(true);
    }, 180_000);

    it("should write every other step of tandem's answer as its junior (handoff step), the senior learning from the joined answer", async () => {
      const config = tinyConfig({ game: 'tandem', knobs: { handoff: 'step' }, steps: 1, problemsPerStep: 1, groupSize: 2, policies: { junior: { endpoint: served(arithmetic) } } });
      const { out } = await runTraining(config);
      const [line] = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
      expect(line.trains).toEqual(['senior']);
      const transcripts = await jsonl<TranscriptLine>(join(out, 'transcripts.jsonl'));
      // The shipped arithmetic base writes its solution as steps ended by "\n\n", so the senior hands the pen over.
      const juniorTurns = transcripts.flatMap((match) => match.turns.filter((turn) => turn.role === 'junior'));
      expect(juniorTurns.length).toBeGreaterThan(0);
      expect(line.endpoints?.junior.endpoint_calls).toBe(juniorTurns.length);
      for (const match of transcripts) {
        expect(match.turns.map((turn) => turn.role)).toEqual(match.turns.map((_, t) => (t % 2 === 0 ? 'senior' : 'junior')));
        // Every turn but the last ended at the step end, which stays in its text: the endpoint's stop_reason gave it back.
        for (const turn of match.turns.slice(0, -1)) expect(turn.text.endsWith('\n\n')).toBe(true);
      }
    }, 180_000);
  });
});
