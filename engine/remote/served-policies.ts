import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { LudusError, entryOf, fail, present } from '../../core/errors.ts';
import { saveAdapter } from '../../native/io/adapter.ts';
import { saveCheckpoint } from '../../native/io/checkpoint.ts';
import type { PolicyPool } from '../policies/policy-pool.ts';
import { TOKENIZER_FILE } from '../trainer/training-checkpoint.ts';
import type { Dialect, HttpCall, ServedTarget } from './dialect.ts';
import { tokenFrom, type RolloutServers } from './remote-config.ts';
import { ServerPool } from './server-pool.ts';
import { loadingAdapter, reportsTemperedLogprobs } from './server-probes.ts';

/**
 * Policies whose weights their trainer keeps (a trainer server, remote rollouts): each writes its current version
 * into the directory given, on storage the rollout servers read, in place of the weights held here.
 */
export type KeptWeightWriters = Map<string, (dir: string) => Promise<void>>;

interface Served {
  readonly servers: ServerPool;
  target: ServedTarget;
  version: number;
  dir?: string;
  /** Earlier versions still loaded, oldest first (rollouts ahead of learning may still sample with them). */
  readonly older: { readonly adapter?: string; readonly dir?: string }[];
}

export interface ServedPoliciesOptions {
  readonly kept?: KeptWeightWriters;
  /** Versions kept loaded behind the current one (rolloutsAhead): a call that fixed its weights before a push finishes with them. */
  readonly keepOlder?: number;
}

/**
 * The run's policies as the rollout servers know them: which servers serve each, which weights a request names
 * (the base model, or the adapter loaded for the policy's current version), and the weight version the servers
 * hold. A policy the learner has updated since is pushed before it samples again: its weights are written as a model
 * directory under `syncDir` and loaded on its servers (an adapter under a new name per version, or the served
 * weights replaced), the previous version's adapter unloaded and its directory removed. Adapter names carry a tag of
 * this run, so runs sharing servers (or a resumed run meeting its earlier adapters) never collide.
 *
 * A server that fails a request or a push leaves its pool (ServerPool); before every call the down servers are asked
 * whether they are back, and one that is gets every policy's current weights pushed to it before it is used again.
 */
export class ServedPolicies {
  private readonly tag = randomUUID().slice(0, 8);
  private ensuring: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly pool: PolicyPool,
    private readonly config: RolloutServers,
    private readonly dialect: Dialect,
    private readonly syncDir: string,
    private readonly served: ReadonlyMap<string, Served>,
    /** Servers found reporting log-probabilities from the raw logits (engine/remote/server-probes.ts). */
    readonly rawLogprobServers: readonly string[],
    private readonly kept: KeptWeightWriters,
    private readonly keepOlder: number,
  ) {}

  /**
   * Binds every policy of the pool to its servers (one ServerPool per distinct server list) and checks their health.
   * The servers are taken to hold each policy's starting weights, except the `stale` ones (a resumed run's trained
   * policies), which are pushed before they first sample.
   */
  static async open(pool: PolicyPool, config: RolloutServers, dialect: Dialect, syncDir: string, stale: readonly string[] = [], token = tokenFrom(config), options: ServedPoliciesOptions = {}): Promise<ServedPolicies> {
    for (const name of Object.keys(config.policies)) {
      if (!pool.names.includes(name)) fail('CONFIG_INVALID', `rolloutServers.policies: no policy "${name}" in this run (its policies: ${pool.names.join(', ')})`, { field: `rolloutServers.policies.${name}` });
    }
    const serverLists = new Map<string, ServerPool>();
    const served = new Map<string, Served>();
    for (const name of pool.names) {
      const urls = config.policies[name]?.servers ?? config.servers;
      const key = urls.join(' ');
      let servers = serverLists.get(key);
      if (!servers) {
        servers = new ServerPool(urls, { maxConcurrency: config.maxConcurrency, timeoutMs: config.timeoutMs, retries: config.retries, backoffMs: config.backoffMs, ...(token !== undefined ? { token } : {}) });
        serverLists.set(key, servers);
      }
      const model = config.policies[name]?.model;
      served.set(name, { servers, target: model === undefined ? {} : { model }, version: stale.includes(name) ? -1 : 0, older: [] });
    }
    if (config.sync === 'full') checkFullSync(pool, config, dialect, served);
    await Promise.all([...serverLists.values()].map((servers) => servers.checkHealth(dialect.healthPath)));
    const probes = ['The answer is', 'Once upon a time'].map((text) => pool.tokenizer.encode(text));
    const raw: string[] = [];
    for (const servers of serverLists.values()) {
      const target = present([...served.values()].find((entry) => entry.servers === servers), 'a policy served by these servers').target;
      for (const server of servers.live()) if (!(await reportsTemperedLogprobs(servers, server, dialect, target, probes))) raw.push(servers.urls[server]);
    }
    const policies = new ServedPolicies(pool, config, dialect, syncDir, served, raw, options.kept ?? new Map(), options.keepOlder ?? 0);
    // Adapters go to the servers at connect time, so a server that cannot take them (rank, slots, LoRA off) is known at once.
    if (config.sync === 'adapter') {
      const adapters = pool.names.filter((name) => pool.policy(name).config.lora !== undefined);
      for (const name of adapters) entryOf(served, name, 'the served policy').version = -1;
      await policies.ensure(adapters);
    }
    return policies;
  }

  servers(policy: string): ServerPool {
    return this.entry(policy).servers;
  }

  target(policy: string): ServedTarget {
    return this.entry(policy).target;
  }

  /**
   * Brings back the servers that are up again (each re-synced first), then pushes every listed policy whose weights
   * changed since its servers got them; returns the versions now served.
   */
  ensure(policies: readonly string[]): Promise<number[]> {
    // One at a time: calls sampling at once (rollouts ahead of learning beside a validation) push a version once.
    const done = this.ensuring.catch(() => undefined).then(() => this.ensureNow(policies));
    this.ensuring = done;
    return done;
  }

  private async ensureNow(policies: readonly string[]): Promise<number[]> {
    for (const servers of new Set([...this.served.values()].map((entry) => entry.servers))) {
      await servers.revive(this.dialect.healthPath, (server) => this.resync(servers, server));
    }
    for (const name of new Set(policies)) {
      const entry = this.entry(name);
      const version = this.pool.version(name);
      if (entry.version !== version) await this.push(name, entry, version);
    }
    return policies.map((name) => this.entry(name).version);
  }

  private async push(name: string, entry: Served, version: number): Promise<void> {
    const policy = this.pool.policy(name);
    const dir = join(this.syncDir, name, `v${version}`);
    const keeper = this.kept.get(name);
    // Written by the trainer that keeps them, or from here: a policy with an adapter as a PEFT adapter over its base's directory (what the load-adapter endpoints read).
    if (keeper) await keeper(dir);
    else if (policy.config.lora) await saveAdapter(dir, policy.config, policy.weights, { baseModel: resolve(this.pool.dir(name)) });
    else await saveCheckpoint(dir, policy.config, policy.weights, { extraFiles: { [TOKENIZER_FILE]: JSON.stringify(this.pool.tokenizer.json) } });
    const previous = { target: entry.target, dir: entry.dir };
    if (this.config.sync === 'full') {
      await this.broadcast(entry.servers, this.fullWeights(dir, version));
    } else {
      const adapter = `${name}-v${version}-${this.tag}`;
      await loadingAdapter(this.dialect, adapter, policy.config.lora?.r, () => this.broadcast(entry.servers, this.dialect.loadAdapter(adapter, dir)));
      entry.target = { ...entry.target, adapter };
    }
    // The versions behind the current one that no call samples with any more: unloaded, their directories removed.
    entry.older.push({ ...(previous.target.adapter !== undefined ? { adapter: previous.target.adapter } : {}), ...(previous.dir !== undefined ? { dir: previous.dir } : {}) });
    const retired = entry.older.splice(0, Math.max(0, entry.older.length - this.keepOlder));
    for (const { adapter: old } of retired) if (old !== undefined) await this.broadcast(entry.servers, this.dialect.unloadAdapter(old));
    entry.version = version;
    entry.dir = dir;
    for (const { dir: oldDir } of retired) if (oldDir !== undefined) await rm(oldDir, { recursive: true, force: true });
  }

  /**
   * Gives a server that is back the current weights of every policy it serves: the adapter of the current version
   * (unloaded first, in case it survived), or the served weights replaced; a policy still at its starting weights needs
   * nothing. A failure leaves the server down.
   */
  /** The call that loads full weights (sync "full", whose endpoint checkFullSync found at connect). */
  private fullWeights(dir: string, version: number): HttpCall {
    return this.dialect.updateWeights?.(dir, version) ?? fail('CONFIG_INVALID', `rolloutServers.sync: "full" needs an endpoint that loads full weights, which the ${this.dialect.name} dialect has not`, { field: 'rolloutServers.sync' });
  }

  private async resync(servers: ServerPool, server: number): Promise<void> {
    for (const [name, entry] of this.served) {
      const dir = entry.dir;
      if (entry.servers !== servers || dir === undefined) continue;
      if (this.config.sync === 'full') {
        await this.sendTo(servers, server, this.fullWeights(dir, entry.version));
      } else if (entry.target.adapter !== undefined) {
        const adapter = entry.target.adapter;
        await this.sendTo(servers, server, this.dialect.unloadAdapter(adapter)).catch((error: unknown) => {
          if (!LudusError.is(error, 'REMOTE_REJECTED')) throw error;
        });
        await loadingAdapter(this.dialect, adapter, this.pool.policy(name).config.lora?.r, () => this.sendTo(servers, server, this.dialect.loadAdapter(adapter, dir)));
      }
    }
  }

  private sendTo(servers: ServerPool, server: number, call: HttpCall): Promise<unknown> {
    return servers.postTo(server, call.path, call.body, (json) => call.check?.(json));
  }

  /** Unloads the adapters this run loaded (best effort: a server already gone is no reason to fail the run's end). */
  async release(): Promise<void> {
    for (const entry of this.served.values()) {
      for (const { adapter } of entry.older.splice(0)) if (adapter !== undefined) await this.broadcast(entry.servers, this.dialect.unloadAdapter(adapter)).catch(() => undefined);
      if (entry.target.adapter === undefined) continue;
      await this.broadcast(entry.servers, this.dialect.unloadAdapter(entry.target.adapter)).catch(() => undefined);
      entry.target = { ...entry.target, adapter: undefined };
    }
  }

  private broadcast(servers: ServerPool, call: HttpCall): Promise<unknown> {
    return servers.broadcast(call.path, call.body, (json) => call.check?.(json));
  }

  private entry(policy: string): Served {
    return this.served.get(policy) ?? fail('POLICY_INVALID', `no policy "${policy}" is served (known: ${[...this.served.keys()].join(', ')})`, { policy });
  }
}

/** Replacing served weights changes them for every policy on those servers: a trained policy needs servers of its own. */
function checkFullSync(pool: PolicyPool, config: RolloutServers, dialect: Dialect, served: ReadonlyMap<string, Served>): void {
  if (!dialect.updateWeights) {
    fail('CONFIG_INVALID', `rolloutServers.sync: "full" needs an endpoint that loads full weights, which the ${dialect.name} dialect has not; use "adapter"`, { field: 'rolloutServers.sync' });
  }
  for (const name of pool.names.filter((n) => pool.trainable(n))) {
    const mine = new Set(entryOf(served, name, 'the served policy').servers.urls);
    for (const other of pool.names.filter((n) => n !== name)) {
      const shared = entryOf(served, other, 'the served policy').servers.urls.filter((url) => mine.has(url));
      if (shared.length > 0) {
        fail('CONFIG_INVALID', `rolloutServers: with sync "full" the trained policy "${name}" replaces the weights of its servers, so it cannot share ${shared.join(', ')} with "${other}"; give it servers of its own under rolloutServers.policies.${name}.servers`, {
          field: `rolloutServers.policies.${name}.servers`,
        });
      }
    }
  }
}
