import { join, resolve } from 'node:path';
import type { Device } from '../../native/ort.ts';
import { DecoderPool } from '../match/decoder-pool.ts';
import type { MatchRuntime } from '../match/runtime.ts';
import type { PolicyPool } from '../policies/policy-pool.ts';
import { HttpRuntime } from './http-runtime.ts';
import type { RolloutServers } from './remote-config.ts';
import type { KeptWeightWriters } from './served-policies.ts';

/** Where pushed weights go unless the config names a directory the servers can read. */
export const SERVED_WEIGHTS_DIR = 'served-weights';

/** Where the run's pushed weights are written: the config's syncDir, else <out>/served-weights. */
export const syncDirOf = (servers: RolloutServers, out: string): string => resolve(servers.syncDir ?? join(out, SERVED_WEIGHTS_DIR));

/** The run's runtime: rollout servers when the config names them, else the in-process decoders. */
export async function openRuntime(
  pool: PolicyPool,
  servers: RolloutServers | undefined,
  options: {
    readonly rows: number;
    readonly maxLen: number;
    readonly out: string;
    readonly threads?: number;
    readonly device?: Device;
    /** Policies whose weights are no longer their starting ones (a resumed run's trained policies): pushed to servers first. */
    readonly stale?: readonly string[];
    /** In-process: adapters over one base in one stacked decoder (DecoderPoolOptions.stackAdapters; default true). */
    readonly stackAdapters?: boolean;
    /** In-process: memory a decoder baking a large frozen model must leave to others (DecoderPoolOptions.reservedBytes). */
    readonly reservedBytes?: number;
    /** Remote: the policies whose trainer writes their weights for the servers (filled in once their learners are open). */
    readonly kept?: KeptWeightWriters;
    /** Remote: versions kept loaded behind the current one (the run's rolloutsAhead). */
    readonly keepOlder?: number;
  },
): Promise<MatchRuntime> {
  if (!servers) return new DecoderPool(pool, { rows: options.rows, maxLen: options.maxLen, threads: options.threads, device: options.device, stackAdapters: options.stackAdapters, reservedBytes: options.reservedBytes });
  return HttpRuntime.open(pool, servers, { rows: options.rows, maxLen: options.maxLen, syncDir: syncDirOf(servers, options.out), stale: options.stale ?? [], ...(options.kept ? { kept: options.kept } : {}), keepOlder: options.keepOlder ?? 0 });
}
