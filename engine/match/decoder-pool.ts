import { fail } from '../../core/errors.ts';
import { deriveSeed } from '../../core/rng.ts';
import { rowAuthorSchedule } from '../../core/schedules/author-schedule.ts';
import { buildSchedule } from '../../core/schedules/spec.ts';
import { Decoder } from '../../native/runtime/decoder.ts';
import { generate, type Rollout } from '../../native/runtime/generate.ts';
import { resolveBinding } from '../../native/runtime/model-session.ts';
import { unstackableReason } from '../../native/model/lora.ts';
import type { Device } from '../../native/ort.ts';
import type { PolicyPool } from '../policies/policy-pool.ts';
import type { MatchRuntime, RolloutCall, RolloutResult } from './runtime.ts';
import { stopStringMatcher } from './stop-strings.ts';
import { tensorOf } from '../../native/model/weights.ts';

interface Entry {
  readonly decoder: Decoder;
  names: string[];
  versions: number[];
}

/**
 * Where a decoder pool takes its policies from, by name, with how often each changed; `names`, when the source knows
 * them all, lets a stacked decoder hold every adapter of its base from the start, in the source's order.
 */
export type PolicySource = Pick<PolicyPool, 'policy' | 'version'> & { readonly names?: readonly string[] };

export interface DecoderPoolOptions {
  readonly rows: number;
  readonly maxLen: number;
  readonly threads?: number;
  readonly device?: Device;
  /**
   * LoRA adapters over one shared base decode in one stacked decoder (one run per step over all their rows, one set
   * of caches) rather than one decoder each, and so do the authors of a co-decoded turn when they are adapters over
   * one base and that base itself (a tandem senior that is an adapter over its junior). Default true; false is the
   * per-policy path (for comparison).
   */
  readonly stackAdapters?: boolean;
  /** Memory a decoder baking a large frozen model must leave to others (DecoderOptions.reservedBytes): a trainer's learner runs. */
  readonly reservedBytes?: number;
}

/**
 * The in-process runtime: one decoder per tuple of policies stepped together (a single policy for a sequential turn,
 * the authors of a co-decoded turn in protocol order). Each is `rows` wide, created on first use and kept; a member
 * whose policy was updated since is recompiled before the decoder is handed out. Solo rows of LoRA adapters over one
 * base share one stacked decoder (their `stackKey`), whichever adapter writes which row; co-decoded authors that are
 * adapters over one base, or that base itself, step in one co-decoded stack (one run per token, both distributions).
 */
export class DecoderPool implements MatchRuntime {
  private readonly entries = new Map<string, Entry>();
  private readonly stacks = new Map<string, Entry>();
  private readonly baseIds = new WeakMap<object, number>();

  constructor(
    private readonly policies: PolicySource,
    readonly options: DecoderPoolOptions,
  ) {}

  get rows(): number {
    return this.options.rows;
  }

  get maxLen(): number {
    return this.options.maxLen;
  }

  /** Adapters over the same base arrays, of one LoRA shape, share a key; plain policies (and stacking off) have none. */
  stackKey(name: string): string | undefined {
    if (this.options.stackAdapters === false || resolveBinding(this.options) !== 'inputs') return undefined;
    const { config, weights } = this.policies.policy(name);
    if (!config.lora) return undefined;
    const embed = tensorOf(weights, 'model.embed_tokens.weight').data;
    let id = this.baseIds.get(embed);
    if (id === undefined) this.baseIds.set(embed, (id = nextBaseId++));
    return `${id}:${JSON.stringify(config.lora)}`;
  }

  /** Whether a co-decoded call's authors step in one co-decoded stack: adapters over one base (or the base itself), stacking on. */
  coStackable(names: readonly string[]): boolean {
    if (this.options.stackAdapters === false || resolveBinding(this.options) !== 'inputs' || names.length < 2) return false;
    return unstackableReason(names.map((name) => this.policies.policy(name))) === null;
  }

  /** onnxruntime runs made by every decoder of the pool so far (a stacked step is one run for all its policies). */
  get sessionRuns(): number {
    return [...this.entries.values(), ...this.stacks.values()].reduce((n, { decoder }) => n + decoder.runs, 0);
  }

  /** One batched generation over the call's rows, padded to the decoder's width with copies of the first row given no budget. */
  async generate(call: RolloutCall): Promise<RolloutResult> {
    if (call.rowPolicies && (call.schedule || call.rowPolicies.length !== call.prompts.length || call.rowPolicies.some((p) => !(p >= 0 && p < call.policies.length)))) {
      fail('INPUT_INVALID', `rowPolicies must name one of the call's ${call.policies.length} policies for each of its ${call.prompts.length} rows, without a schedule`);
    }
    const versions = call.policies.map((name) => this.policies.version(name));
    const solo = !call.schedule && !call.partnerLogprobs;
    const keys = solo ? new Set(call.policies.map((name) => this.stackKey(name))) : new Set([undefined]);
    const [onlyKey] = keys;
    if (keys.size === 1 && onlyKey !== undefined) return { rollouts: await this.generateStacked(call, onlyKey), versions };
    if (call.rowPolicies && call.policies.length > 1) return { rollouts: await this.generateApart(call), versions };
    const decoder = await this.get(call.rowPolicies ? [call.policies[0]] : call.policies, !solo && this.coStackable(call.policies));
    return { rollouts: await this.run(decoder, call), versions };
  }

  /** The rows of a call in the stacked decoder of its adapters, each row's author its adapter's place in the stack. */
  private async generateStacked(call: RolloutCall, key: string): Promise<Rollout[]> {
    const decoder = await this.stacked(key, call.policies);
    const order = decoder.policies.map((p) => p.name);
    const callIndex = call.prompts.map((_, row) => call.rowPolicies?.[row] ?? 0);
    const authors = callIndex.map((i) => order.indexOf(call.policies[i]));
    const rollouts = await this.run(decoder, call, [...authors, ...Array<number>(decoder.batch - authors.length).fill(authors[0])]);
    return rollouts.map((rollout, row) => ({ ...rollout, authors: rollout.authors.map(() => callIndex[row]) }));
  }

  /** Rows of policies that cannot share a batch: each policy's rows in a call of their own, at the seeds they had. */
  private async generateApart(call: RolloutCall): Promise<Rollout[]> {
    const rollouts: Rollout[] = [];
    const rowPolicies = call.rowPolicies ?? [];
    for (const [p, name] of call.policies.entries()) {
      const rows = call.prompts.flatMap((_, row) => (rowPolicies[row] === p ? [row] : []));
      if (rows.length === 0) continue;
      const pick = <T>(values: readonly T[] | undefined) => (values ? rows.map((row) => values[row]) : undefined);
      const onStep = call.onStep;
      const { rollouts: part } = await this.generate({
        ...call,
        policies: [name],
        rowPolicies: undefined,
        prompts: rows.map((row) => call.prompts[row]),
        rowSeeds: pick(call.rowSeeds) ?? rows.map((row) => deriveSeed(call.seed, row)),
        rowMaxNewTokens: pick(call.rowMaxNewTokens),
        stopStrings: pick(call.stopStrings),
        onStep: onStep
          ? (step, tokens, authors) => {
              const all = new Int32Array(call.prompts.length).fill(-1);
              rows.forEach((row, i) => (all[row] = tokens[i]));
              return onStep(step, all, new Int32Array(call.prompts.length).fill(p));
            }
          : undefined,
      });
      rows.forEach((row, i) => (rollouts[row] = { ...part[i], authors: part[i].authors.map(() => p) }));
    }
    return rollouts;
  }

  private async run(decoder: Decoder, call: RolloutCall, stackedAuthors?: number[]): Promise<Rollout[]> {
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
      ...(call.schedule ? { schedule: buildSchedule(call.schedule) } : stackedAuthors ? { schedule: rowAuthorSchedule(stackedAuthors) } : {}),
      ...(call.partnerLogprobs ? { partnerLogprobs: true } : {}),
      ...(stopWhen ? { stopWhen } : {}),
      ...(call.onStep ? { onStep: call.onStep } : {}),
    });
    return rollouts.slice(0, rows);
  }

  /**
   * The stacked decoder of one base holding `names`. A row's arithmetic depends on its adapter's place in the stack,
   * so the stack's order never depends on which calls came first (a resumed run must decode as an unbroken one): from
   * a source that lists its policies it holds every adapter of that base from the start, in the source's order;
   * otherwise (a tournament's entrant cache, whose entrants come and go) it holds exactly the call's adapters, in the
   * call's order, re-stacked when a call names others. An adapter updated since it was copied is copied again.
   */
  private async stacked(key: string, names: readonly string[]): Promise<Decoder> {
    let entry = this.stacks.get(key);
    const current = (name: string) => this.policies.policy(name);
    if (!entry) {
      const all = this.policies.names?.filter((name) => this.stackKey(name) === key) ?? [];
      const first = names.every((name) => all.includes(name)) ? all : names;
      const decoder = await Decoder.create(first.map(current), { batch: this.options.rows, maxLen: this.options.maxLen, threads: this.options.threads, device: this.options.device, reservedBytes: this.options.reservedBytes, stacked: true });
      entry = { decoder, names: [...first], versions: first.map((name) => this.policies.version(name)) };
      this.stacks.set(key, entry);
    } else if (!containsAll(entry.names, names) || (!this.policies.names && !sameList(entry.names, names))) {
      await entry.decoder.setStackedPolicies(names.map(current));
      entry.names = [...names];
      entry.versions = names.map((name) => this.policies.version(name));
    }
    for (const name of names) {
      const index = entry.names.indexOf(name);
      const version = this.policies.version(name);
      if (entry.versions[index] === version) continue;
      await entry.decoder.updatePolicy(index, current(name));
      entry.versions[index] = version;
    }
    return entry.decoder;
  }

  /** The decoder of `names` stepped together: one member per policy, or with `coStacked` one co-decoded stack of them (coStackable). */
  async get(names: readonly string[], coStacked = false): Promise<Decoder> {
    const key = `${coStacked ? '\u0001stacked\u0000' : ''}${names.join('\u0000')}`;
    let entry = this.entries.get(key);
    if (!entry) {
      const decoder = await Decoder.create(
        names.map((name) => this.policies.policy(name)),
        { batch: this.options.rows, maxLen: this.options.maxLen, threads: this.options.threads, device: this.options.device, reservedBytes: this.options.reservedBytes, ...(coStacked ? { stacked: true, coDecoded: true } : {}) },
      );
      entry = { decoder, names: [...names], versions: names.map((name) => this.policies.version(name)) };
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
    for (const { decoder } of [...this.entries.values(), ...this.stacks.values()]) await decoder.release();
    this.entries.clear();
    this.stacks.clear();
  }
}

let nextBaseId = 0;

const containsAll = (list: readonly string[], wanted: readonly string[]): boolean => wanted.every((name) => list.includes(name));

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}
