import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composePlugins } from '../../../composition/compose.ts';
import { buildSchedule } from '../../../core/schedules/spec.ts';
import { arenaFor } from '../../../engine/match/arena.ts';
import { DecoderPool } from '../../../engine/match/decoder-pool.ts';
import { playMatches } from '../../../engine/match/play-matches.ts';
import type { RolloutCall } from '../../../engine/match/runtime.ts';
import { PolicyPool } from '../../../engine/policies/policy-pool.ts';
import { HttpRuntime } from '../../../engine/remote/http-runtime.ts';
import { RolloutServersSchema } from '../../../engine/remote/remote-config.ts';
import { referenceLogprobs } from '../../../engine/trainer/reference-logprobs.ts';
import { trajectoryOf } from '../../../engine/trainer/role-rollouts.ts';
import { gameFor } from '../../../engine/trainer/run-pieces.ts';
import { TrainConfigSchema } from '../../../engine/trainer/train-config.ts';
import { Scorer } from '../../../native/runtime/scorer.ts';
import { taskByName } from '../../../plugins/tasks/registry.ts';
import { startModelServer, type ModelServer } from '../../../server/model-server/model-server.ts';
import { jsonl, runTraining, tinyConfig } from '../../support/training.ts';
import { TEST_TOKEN, useTestToken } from '../../support/server-token.ts';

useTestToken();

const TEMPERATURE = 0.6;
/** The only temperature at which vLLM and SGLang score partners right. */
const SCORED_TEMPERATURE = 1;

describe('the HTTP runtime on ludus serve-model', () => {
  let servers: ModelServer[];
  let pool: PolicyPool;
  let syncDir: string;
  const runtimes: HttpRuntime[] = [];
  const open = async (dialect: 'vllm' | 'sglang', urls = servers.map((s) => s.url), policies = pool) => {
    const runtime = await HttpRuntime.open(policies, RolloutServersSchema.parse({ dialect, servers: urls, spanTokens: 3 }), { rows: 8, maxLen: 320, syncDir });
    runtimes.push(runtime);
    return runtime;
  };

  beforeAll(async () => {
    servers = await Promise.all([0, 1].map(() => startModelServer({ model: 'default', name: 'base', host: '127.0.0.1', port: 0, rows: 4, threads: 1, token: TEST_TOKEN, allowDirs: [tmpdir()] })));
    pool = await PolicyPool.load(['senior', 'junior'].map((name) => ({ name, init: 'default', trainable: false })), { task: 'arithmetic' });
    syncDir = await mkdtemp(join(tmpdir(), 'ludus-sync-'));
  }, 60_000);

  afterAll(async () => {
    for (const runtime of runtimes) await runtime.release();
    for (const server of servers ?? []) await server.close();
    await rm(syncDir, { recursive: true, force: true });
  });

  describe.each(['vllm', 'sglang'] as const)('having solo rows with their own seeds and a stop string, in the %s dialect', (dialect) => {
    it('should return the rows the in-process decoders return, token for token and log-probability for log-probability', async () => {
      const problems = (await taskByName('arithmetic')).problems('test', 3);
      const call: RolloutCall = {
        policies: ['senior'],
        prompts: problems.map((problem) => pool.tokenizer.encode(problem.prompt)),
        maxNewTokens: 40,
        rowMaxNewTokens: [40, 12, 40],
        rowSeeds: [11, 12, 13],
        seed: 0,
        sampling: { temperature: TEMPERATURE, topK: 0, topP: 1 },
        stopTokens: pool.policy('senior').config.eosTokenIds,
        stopStrings: [['\n\n'], [], ['\n\n']],
        decode: (ids) => pool.tokenizer.decode(ids),
      };
      const local = new DecoderPool(pool, { rows: 4, maxLen: 320, threads: 1 });
      const expected = await local.generate(call);
      await local.release();
      const remote = await (await open(dialect)).generate(call);
      expect(remote.rollouts).toEqual(expected.rollouts);
      expect(expected.rollouts.map((r) => r.finish)).toContain('stop-sequence');
    });
  });

  describe.each(['vllm', 'sglang'] as const)('having tandem matches co-written over two servers by span-and-cut in the %s dialect, the senior trained away from the junior', (dialect) => {
    it('should hand off exactly where the schedule says, every token sampled by its own author from the whole prefix, partners scored through the server\'s real padding', async () => {
      const tandem = await PolicyPool.load(
        [
          { name: 'senior', init: 'default', trainable: true },
          { name: 'junior', init: 'default', trainable: false },
        ],
        { task: 'arithmetic' },
      );
      for (const [, tensor] of tandem.policy('senior').weights) for (let i = 0; i < tensor.data.length; i += 5) tensor.data[i] *= 1.3;
      tandem.bump('senior');
      const runtime = await open(dialect, servers.map((s) => s.url), tandem);
      const config = TrainConfigSchema.parse({ game: 'tandem', maxNewTokens: 40, temperature: SCORED_TEMPERATURE });
      const game = gameFor(await composePlugins(), config);
      const arenaAt = (temperature: number) => arenaFor(game, runtime, tandem.tokenizer, tandem.policy('senior').config.eosTokenIds, { temperature, topP: 1, maxNewTokens: 40 });
      const problems = (await taskByName('arithmetic')).problems('test', 2);
      const play = (temperature: number) => playMatches(arenaAt(temperature), { problems, copies: 2, seats: game.rotation.at(0).seats, seeds: { generation: 5, schedule: 6 }, label: 'http' });
      // Both servers score prompts from the raw logits: partners' log-probabilities at another temperature are refused before a request is sent.
      const requestsBefore = runtime.traffic.requests;
      await expect(play(TEMPERATURE)).rejects.toMatchObject({ code: 'REMOTE_UNSUPPORTED' });
      expect(runtime.traffic.requests).toBe(requestsBefore);
      const matches = await play(SCORED_TEMPERATURE);
      const trajectories = matches.map((match) => trajectoryOf(match, match.turns[0]));
      const scoredBy = await Promise.all(
        ['senior', 'junior'].map(async (name) => {
          const scorer = await Scorer.create(tandem.policy(name), { threads: 1 });
          const scored = await referenceLogprobs(scorer, trajectories, SCORED_TEMPERATURE);
          await scorer.release();
          return scored;
        }),
      );
      for (const [i, match] of matches.entries()) {
        const [turn] = match.turns;
        const schedule = buildSchedule(turn.origin.schedule);
        const authors = turn.tokens.map((_, t) => (t === 0 ? schedule.first(turn.origin.row) : schedule.next(turn.origin.row, turn.tokens[t - 1])));
        expect(turn.authorIds).toEqual(authors);
        expect(turn.origin.versions).toEqual([1, 0]);
        // Float noise between batch shapes (seen up to 7e-5) is under the tolerance; the other author differs by far more.
        turn.logprobs.forEach((logprob, t) => expect(logprob).toBeCloseTo(scoredBy[turn.authorIds[t]][i][t], 3));
        turn.partnerLogprobs!.forEach((partner, m) => partner.forEach((logprob, t) => expect(logprob).toBeCloseTo(scoredBy[m][i][t], 3)));
      }
      const gap = matches.flatMap((_, i) => scoredBy[0][i].map((senior, t) => Math.abs(senior - scoredBy[1][i][t])));
      expect(Math.max(...gap)).toBeGreaterThan(0.05);
      expect(new Set(matches.flatMap((m) => m.turns[0].authorIds)).size).toBe(2);
      expect(runtime.traffic.generated).toBeGreaterThan(runtime.traffic.kept);
      expect(runtime.traffic.kept).toBe(matches.reduce((a, m) => a + m.turns[0].tokens.length, 0));
    });
  });

  describe('having a server that starts failing in the middle of a run', () => {
    it('should fail the run with a coded error after the steps that completed, recording nothing of the failed step', async () => {
      let failing = false;
      const target = new URL(servers[0].url);
      const proxy: Server = createServer((incoming, outgoing) => {
        if (failing && incoming.url === '/v1/completions') {
          incoming.resume();
          outgoing.writeHead(500, { 'content-type': 'application/json' });
          outgoing.end('{"error":{"message":"GPU fell off the bus"}}');
          return;
        }
        const forwarded = httpRequest({ host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: incoming.headers }, (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        });
        incoming.pipe(forwarded);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const config = tinyConfig({ game: 'grpo', steps: 3, maxNewTokens: 24, checkpointEvery: 1, rolloutServers: { dialect: 'vllm', servers: [url], retries: 1, backoffMs: 5 } });
      const out = await mkdtemp(join(tmpdir(), 'ludus-failing-'));
      const error = await runTraining(config, {
        out,
        onStep: (line) => {
          if (line.step === 1) failing = true;
        },
      }).catch((e: unknown) => e);
      proxy.closeAllConnections();
      proxy.close();
      expect(error).toMatchObject({ code: 'REMOTE_UNAVAILABLE', message: expect.stringContaining('HTTP 500') });
      expect((await jsonl<{ step: number }>(join(out, 'metrics.jsonl'))).map((line) => line.step)).toEqual([1]);
      expect(new Set((await jsonl<{ step: number }>(join(out, 'transcripts.jsonl'))).map((line) => line.step))).toEqual(new Set([1]));
      await rm(out, { recursive: true, force: true });
    }, 60_000);
  });
});
