import { buildSchedule } from '../../core/schedules/spec.ts';
import { Decoder } from '../../native/runtime/decoder.ts';
import { generate } from '../../native/runtime/generate.ts';
import type { Device } from '../../native/ort.ts';
import type { PolicyPool } from '../policies/policy-pool.ts';
import type { MatchRuntime, RolloutCall, RolloutResult } from './runtime.ts';
import { stopStringMatcher } from './stop-strings.ts';

interface Entry {
  readonly decoder: Decoder;
  readonly names: readonly string[];
  readonly versions: number[];
}

/** Where a decoder pool takes its policies from, by name, with how often each changed. */
export type PolicySource = Pick<PolicyPool, 'policy' | 'version'>;

/**
 * The in-process runtime: one decoder per tuple of policies stepped together (a single policy for a sequential turn,
 * the authors of a co-decoded turn in protocol order). Each is `rows` wide, created on first use and kept; a member
 * whose policy was updated since is recompiled before the decoder is handed out.
 */
export class DecoderPool implements MatchRuntime {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly policies: PolicySource,
    readonly options: { readonly rows: number; readonly maxLen: number; readonly threads?: number; readonly device?: Device },
  ) {}

  get rows(): number {
    return this.options.rows;
  }

  get maxLen(): number {
    return this.options.maxLen;
  }

  /** One batched generation over the call's rows, padded to the decoder's width with copies of the first row given no budget. */
  async generate(call: RolloutCall): Promise<RolloutResult> {
    const decoder = await this.get(call.policies);
    const rows = call.prompts.length;
    const pad = <T>(values: readonly T[], filler: T): T[] => [...values, ...Array<T>(decoder.batch - rows).fill(filler)];
    const budgets = call.rowMaxNewTokens ?? call.prompts.map(() => call.maxNewTokens);
    const stopWhen = stopStringMatcher(call.decode, call.stopStrings);
    const rollouts = await generate(decoder, pad(call.prompts, call.prompts[0]), {
      maxNewTokens: call.maxNewTokens,
      rowMaxNewTokens: pad(budgets, 0),
      ...(call.rowSeeds ? { rowSeeds: pad(call.rowSeeds, 0) } : {}),
      seed: call.seed,
      sampling: call.sampling,
      stopTokens: call.stopTokens,
      padToken: call.stopTokens[0],
      ...(call.schedule ? { schedule: buildSchedule(call.schedule) } : {}),
      ...(call.partnerLogprobs ? { partnerLogprobs: true } : {}),
      ...(stopWhen ? { stopWhen } : {}),
      ...(call.onStep ? { onStep: call.onStep } : {}),
    });
    return { rollouts: rollouts.slice(0, rows), versions: call.policies.map((name) => this.policies.version(name)) };
  }

  async get(names: readonly string[]): Promise<Decoder> {
    const key = names.join('\u0000');
    let entry = this.entries.get(key);
    if (!entry) {
      const decoder = await Decoder.create(
        names.map((name) => this.policies.policy(name)),
        { batch: this.options.rows, maxLen: this.options.maxLen, threads: this.options.threads, device: this.options.device },
      );
      entry = { decoder, names, versions: names.map((name) => this.policies.version(name)) };
      this.entries.set(key, entry);
    }
    for (const [index, name] of entry.names.entries()) {
      const version = this.policies.version(name);
      if (entry.versions[index] === version) continue;
      await entry.decoder.updatePolicy(index, this.policies.policy(name));
      entry.versions[index] = version;
    }
    return entry.decoder;
  }

  async release(): Promise<void> {
    for (const { decoder } of this.entries.values()) await decoder.release();
    this.entries.clear();
  }
}
