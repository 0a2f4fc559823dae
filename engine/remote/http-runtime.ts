import { setMaxListeners } from 'node:events';
import { fail } from '../../core/errors.ts';
import { deriveSeed } from '../../core/rng.ts';
import { buildSchedule, type ScheduleSpec } from '../../core/schedules/spec.ts';
import type { Rollout } from '../../native/runtime/generate.ts';
import type { PolicyPool } from '../policies/policy-pool.ts';
import type { MatchRuntime, RolloutCall, RolloutResult } from '../match/runtime.ts';
import { stopStringMatcher } from '../match/stop-strings.ts';
import type { Dialect, ServedTarget, SampleRequest } from './dialect.ts';
import { tokenFrom, type RolloutServers } from './remote-config.ts';
import { ServedPolicies, type KeptWeightWriters } from './served-policies.ts';
import { coWriteRow } from './span-and-cut.ts';
import { sglangDialect } from './sglang-dialect.ts';
import { vllmDialect } from './vllm-dialect.ts';

/** How each family is told to report log-probabilities at the sampling temperature. */
const RAW_LOGPROBS_FIX: Readonly<Record<Dialect['name'], string>> = {
  vllm: 'start vLLM with --logprobs-mode processed_logprobs',
  sglang: 'start SGLang without SGLANG_RETURN_ORIGINAL_LOGPROB',
};

export const DIALECTS: Readonly<Record<RolloutServers['dialect'], Dialect>> = { vllm: vllmDialect, sglang: sglangDialect };

/** What the servers were asked for and what was kept, over the runtime's life (the wasted-token fraction of span-and-cut). */
export interface RemoteTraffic {
  requests: number;
  generated: number;
  kept: number;
  resent: number;
  scored: number;
}

/**
 * The match engine's runtime on sampling servers over HTTP. Every row is its own request stream, assigned to a server
 * by its seed: a solo row or a sequential turn is one request for its whole budget (seeded with the row's own seed,
 * so a server that samples as ludus does returns the very tokens the in-process decoder would); a co-decoded row is
 * written by span-and-cut (engine/remote/span-and-cut.ts), with step handoffs as ordinary stops; partners'
 * log-probabilities of a co-written row come from scoring it under each other author (prompt log-probabilities).
 * A call returns every row or fails whole (its other requests aborted), so nothing half-played is recorded.
 */
export class HttpRuntime implements MatchRuntime {
  readonly traffic: RemoteTraffic = { requests: 0, generated: 0, kept: 0, resent: 0, scored: 0 };

  private constructor(
    private readonly pool: PolicyPool,
    private readonly served: ServedPolicies,
    private readonly dialect: Dialect,
    private readonly config: RolloutServers,
    readonly rows: number,
    readonly maxLen: number,
  ) {}

  /** `token`: the servers' bearer token, when not the value of the config's `tokenEnv`. */
  static async open(pool: PolicyPool, config: RolloutServers, options: { rows: number; maxLen: number; syncDir: string; stale?: readonly string[]; token?: string; kept?: KeptWeightWriters; keepOlder?: number }): Promise<HttpRuntime> {
    const dialect = DIALECTS[config.dialect];
    const served = await ServedPolicies.open(pool, config, dialect, options.syncDir, options.stale, options.token ?? tokenFrom(config), { ...(options.kept ? { kept: options.kept } : {}), keepOlder: options.keepOlder ?? 0 });
    return new HttpRuntime(pool, served, dialect, config, options.rows, options.maxLen);
  }

  async generate(call: RolloutCall): Promise<RolloutResult> {
    this.dialect.checkCall({ temperature: call.sampling.temperature, topP: call.sampling.topP, scoring: call.partnerLogprobs === true });
    if (call.sampling.temperature !== 1 && this.served.rawLogprobServers.length > 0) {
      fail('REMOTE_MISCONFIGURED', `${this.served.rawLogprobServers.join(', ')} report log-probabilities from the raw logits, not at the sampling temperature ${call.sampling.temperature}: ${RAW_LOGPROBS_FIX[this.dialect.name]}`, { servers: this.served.rawLogprobServers });
    }
    const versions = await this.served.ensure(call.policies);
    // The weights the call samples with, fixed now: a version pushed meanwhile (rollouts ahead of learning) is another call's.
    const targets = call.policies.map((policy) => this.served.target(policy));
    const spec: ScheduleSpec = call.schedule ?? { kind: 'solo' };
    const schedule = buildSchedule(spec);
    const handoffStops = spec.kind === 'step' ? spec.boundary : [];
    const spanTokens = spec.kind === 'word' ? this.config.spanTokens : Number.POSITIVE_INFINITY;
    const stopTokens = new Set(call.stopTokens);
    const stopWhen = stopStringMatcher(call.decode ?? ((ids) => this.pool.tokenizer.decode(ids)), call.stopStrings);
    const aborted = new AbortController();
    // Every request of the call listens on it (one per row and span in flight): many, none kept past the call.
    setMaxListeners(0, aborted.signal);
    let step = 0;
    const stream = (row: number, token: number, author: number) => {
      if (!call.onStep) return undefined;
      const tokens = new Int32Array(call.prompts.length).fill(-1);
      const authors = new Int32Array(call.prompts.length);
      tokens[row] = token;
      authors[row] = author;
      return call.onStep(step++, tokens, authors);
    };
    const playRow = async (prompt: readonly number[], row: number): Promise<Rollout> => {
      const seed = call.rowSeeds?.[row] ?? deriveSeed(call.seed, row);
      const written = await coWriteRow({
        row,
        prompt,
        budget: Math.min(call.rowMaxNewTokens?.[row] ?? call.maxNewTokens, call.maxNewTokens),
        seed,
        schedule,
        spanTokens,
        handoffStops: new Set(handoffStops),
        stopTokens,
        ...(stopWhen ? { stopWhen } : {}),
        onToken: (token, author) => stream(row, token, author),
        sample: (author, prefix, maxTokens, spanSeed) => {
          const policy = call.policies[author];
          const request: SampleRequest = {
            target: targets[author],
            prompt: prefix,
            maxTokens,
            temperature: call.sampling.temperature,
            topP: call.sampling.topP,
            seed: spanSeed,
            stopTokenIds: [...call.stopTokens, ...handoffStops],
            stopStrings: call.stopStrings?.[row] ?? [],
            eosTokenIds: this.pool.policy(policy).config.eosTokenIds,
          };
          const { path, body } = this.dialect.sample(request);
          return this.served.servers(policy).post(seed, path, body, (json) => this.dialect.parseSample(json, request), aborted.signal);
        },
      });
      this.count(written.requests, written.generated, written.rollout.tokens.length, written.resent);
      if (call.partnerLogprobs) written.rollout.partnerLogprobs = await this.partnerLogprobs(call, targets, written.rollout, seed, aborted.signal);
      return written.rollout;
    };
    try {
      return { rollouts: await Promise.all(call.prompts.map(playRow)), versions };
    } finally {
      aborted.abort();
    }
  }

  /** Each author's log-probability of every token: its own sampled ones, the rest scored under it at the sampling temperature. */
  private async partnerLogprobs(call: RolloutCall, targets: readonly ServedTarget[], rollout: Rollout, key: number, signal: AbortSignal): Promise<number[][]> {
    return Promise.all(
      call.policies.map(async (policy, m) => {
        if (rollout.tokens.length === 0 || rollout.authors.every((a) => a === m)) return [...rollout.logprobs];
        const request = { target: targets[m], sequence: [...rollout.prompt, ...rollout.tokens], from: rollout.prompt.length, temperature: call.sampling.temperature };
        const { path, body } = this.dialect.score(request);
        const scored = await this.served.servers(policy).post(key, path, body, (json) => this.dialect.parseScore(json, request), signal);
        this.traffic.scored += 1;
        return rollout.tokens.map((_, t) => (rollout.authors[t] === m ? rollout.logprobs[t] : scored[t]));
      }),
    );
  }

  private count(requests: number, generated: number, kept: number, resent: number): void {
    this.traffic.requests += requests;
    this.traffic.generated += generated;
    this.traffic.kept += kept;
    this.traffic.resent += resent;
  }

  async release(): Promise<void> {
    await this.served.release();
  }
}
