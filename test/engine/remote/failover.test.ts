import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DecoderPool } from '../../../engine/match/decoder-pool.ts';
import type { RolloutCall } from '../../../engine/match/runtime.ts';
import { PolicyPool } from '../../../engine/policies/policy-pool.ts';
import { HttpRuntime } from '../../../engine/remote/http-runtime.ts';
import { RolloutServersSchema } from '../../../engine/remote/remote-config.ts';
import { taskByName } from '../../../plugins/tasks/registry.ts';
import type { ModelServer } from '../../../server/model-server/model-server.ts';
import { startTestModelServer } from '../../support/model-server.ts';
import { killableProxy, type KillableProxy } from '../../support/killable-proxy.ts';
import { useTestToken } from '../../support/server-token.ts';

useTestToken();

/**
 * Two rollout servers behind proxies that can die, mid-push or mid-sample, and come back: every rollout must still be
 * the one the in-process decoders sample from the trained policy's current weights.
 */
describe('the HTTP runtime when a rollout server dies and comes back', () => {
  let servers: ModelServer[];
  let proxies: KillableProxy[];
  let pool: PolicyPool;
  let syncDir: string;
  let runtime: HttpRuntime;
  let call: RolloutCall;

  /** Changes the trained policy's weights as an optimizer step would, and bumps its version. */
  const train = () => {
    for (const [, tensor] of pool.policy('senior').weights) for (let i = 0; i < tensor.data.length; i += 5) tensor.data[i] *= 1.1;
    pool.bump('senior');
  };
  const local = async () => {
    const decoders = new DecoderPool(pool, { rows: 8, maxLen: 320, threads: 1 });
    const { rollouts } = await decoders.generate(call);
    await decoders.release();
    return rollouts;
  };
  /** Where each path went, from the n-th request the proxy forwarded on. */
  const pathsFrom = (proxy: KillableProxy, from: number) => proxy.seen.slice(from).filter((path) => path !== '/health');

  beforeAll(async () => {
    servers = await Promise.all([0, 1].map(() => startTestModelServer()));
    proxies = await Promise.all(servers.map((server) => killableProxy(server.url)));
    pool = await PolicyPool.load([{ name: 'senior', init: 'default', trainable: true }], { task: 'arithmetic' });
    syncDir = await mkdtemp(join(tmpdir(), 'ludus-failover-'));
    runtime = await HttpRuntime.open(pool, RolloutServersSchema.parse({ dialect: 'vllm', servers: proxies.map((p) => p.url), retries: 1, backoffMs: 5 }), { rows: 8, maxLen: 320, syncDir });
    const problems = (await taskByName('arithmetic')).problems('test', 6);
    call = {
      policies: ['senior'],
      prompts: problems.map((problem) => pool.tokenizer.encode(problem.prompt)),
      maxNewTokens: 24,
      // Seeds 10..15: rows go to servers 0, 1, 0, 1, 0, 1.
      rowSeeds: [10, 11, 12, 13, 14, 15],
      seed: 0,
      sampling: { temperature: 1, topK: 0, topP: 1 },
      stopTokens: pool.policy('senior').config.eosTokenIds,
    };
  }, 60_000);

  afterAll(async () => {
    await runtime?.release();
    for (const proxy of proxies ?? []) await proxy.close();
    for (const server of servers ?? []) await server.close();
    await rm(syncDir, { recursive: true, force: true });
  });

  describe('having server 1 die while the new weights are pushed', () => {
    it('should push to server 0, leave server 1 out, and sample every row from the new weights there', async () => {
      train();
      proxies[1].dieOn('/v1/load_lora_adapter');
      const before = proxies[1].seen.length;
      const { rollouts, versions } = await runtime.generate(call);
      expect(versions).toEqual([1]);
      expect(rollouts).toEqual(await local());
      expect(pathsFrom(proxies[1], before)).toEqual([]);
    });
  });

  describe('having server 1 come back after a push it missed', () => {
    it('should load the current version on it before it samples again, and its rows come out as the in-process ones', async () => {
      proxies[1].revive();
      const before = proxies[1].seen.length;
      const { rollouts, versions } = await runtime.generate(call);
      expect(versions).toEqual([1]);
      expect(rollouts).toEqual(await local());
      const paths = pathsFrom(proxies[1], before);
      expect(paths.slice(0, 2)).toEqual(['/v1/unload_lora_adapter', '/v1/load_lora_adapter']);
      expect(paths.slice(2).every((path) => path === '/v1/completions')).toBe(true);
      expect(paths.filter((path) => path === '/v1/completions')).toHaveLength(3);
    });
  });

  describe('having server 0 die in the middle of sampling, after the next push', () => {
    it('should move its rows to server 1, which holds the same version, and return the rows the in-process decoders return', async () => {
      train();
      proxies[0].dieOn('/v1/completions', 2);
      const before = proxies.map((proxy) => proxy.seen.length);
      const { rollouts, versions } = await runtime.generate(call);
      expect(versions).toEqual([2]);
      expect(rollouts).toEqual(await local());
      // Server 0 answered one of its three rows before it died; the other two moved to server 1.
      expect(pathsFrom(proxies[0], before[0]).filter((path) => path === '/v1/completions')).toHaveLength(1);
      expect(pathsFrom(proxies[1], before[1]).filter((path) => path === '/v1/completions')).toHaveLength(5);
    });
  });

  describe('having both servers dead', () => {
    it('should fail the call with REMOTE_UNAVAILABLE', async () => {
      proxies[1].kill();
      await expect(runtime.generate(call)).rejects.toMatchObject({ code: 'REMOTE_UNAVAILABLE' });
    });
  });
});
