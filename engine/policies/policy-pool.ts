import { entryOf, fail } from '../../core/errors.ts';
import { pathExists } from '../../native/io/files.ts';
import { cloneWeights, validateTensors, type Weights } from '../../native/model/weights.ts';
import { adaptedWeights, adapterShapes, initAdapter, withAdapter } from '../../native/model/lora.ts';
import { type LoraConfig } from '../../native/model/lora-config.ts';
import type { Endpoint } from '../remote/endpoint-config.ts';
import { assertSharedTokenizer, type Policy } from '../../native/runtime/policy.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { loadPolicy, type LoadedPolicy } from '../../plugins/policies/load-policy.ts';
import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';

/** One policy of a run: where it starts from, and whether it learns. */
export interface PolicySpec {
  readonly name: string;
  /** A model directory, or 'default' (the shipped base of the run's task). */
  readonly init: string;
  readonly trainable: boolean;
  /** A LoRA adapter over the frozen `init` (and the seed of its initial values) instead of a full copy. */
  readonly adapter?: LoraConfig & { seed: number };
  /** Played from an OpenAI-compatible endpoint instead of weights (EndpointRuntime): never loaded into the pool. */
  readonly endpoint?: Endpoint;
}

/**
 * The policies of a run by name. Frozen policies that start from the same directory share one copy of its weights;
 * a trainable policy owns a copy its learner updates in place (`bump` after each update, so decoders recompile), or,
 * with an adapter, only the adapter's tensors over the shared base's arrays.
 * Every policy must read tokens the same way: one tokenizer for the pool.
 */
export class PolicyPool {
  private readonly versions = new Map<string, number>();

  private constructor(
    private readonly policies: Map<string, Policy>,
    private readonly starts: ReadonlyMap<string, Policy>,
    private readonly specsByName: Map<string, PolicySpec>,
    readonly tokenizer: TextTokenizer,
    private readonly dirs: Map<string, string>,
    versions: ReadonlyMap<string, number> = new Map(),
  ) {
    for (const name of policies.keys()) this.versions.set(name, versions.get(name) ?? 0);
  }

  /**
   * Loads every policy; `weights` replaces a trainable policy's starting weights (a resumed run's checkpoint: for a
   * policy with an adapter, the adapter's tensors alone), and `versions` gives the updates those weights have had (so
   * a resumed run records the versions an unbroken one would).
   * A directory that does not exist, or holds no tokenizer, is a coded error naming the policy.
   */
  static async load(specs: readonly PolicySpec[], options: { task: string; weights?: ReadonlyMap<string, Weights>; versions?: ReadonlyMap<string, number> }): Promise<PolicyPool> {
    const dirs = new Map(specs.map((spec) => [spec.name, resolveModelDir(spec.init, options.task)]));
    for (const spec of specs) {
      const dir = entryOf(dirs, spec.name, 'the directory of policy');
      if (!(await pathExists(dir))) fail('POLICY_INVALID', `policy "${spec.name}": ${dir} does not exist`, { policy: spec.name, dir });
    }
    const loaded = new Map<string, LoadedPolicy>();
    for (const dir of new Set(dirs.values())) loaded.set(dir, await loadPolicy(dir));
    const policies = new Map<string, Policy>();
    const starts = new Map<string, Policy>();
    let tokenizer: TextTokenizer | undefined;
    for (const spec of specs) {
      const dir = entryOf(dirs, spec.name, 'the directory of policy');
      const base = entryOf(loaded, dir, 'the policy loaded from');
      tokenizer ??= base.tokenizer ?? fail('POLICY_INVALID', `policy "${spec.name}": ${dir} has no tokenizer.json, which matches need`, { policy: spec.name, dir });
      const saved = spec.trainable ? options.weights?.get(spec.name) : undefined;
      if (spec.adapter) {
        const { seed, ...lora } = spec.adapter;
        const config = withAdapter(base.policy.config, lora);
        const initial = initAdapter(config, seed);
        if (saved) validateTensors(adapterShapes(config), saved, `policy "${spec.name}": saved adapter`);
        starts.set(spec.name, { ...base.policy, config, name: `${spec.name}@start`, weights: adaptedWeights(base.policy.weights, spec.trainable ? cloneWeights(initial) : initial) });
        policies.set(spec.name, { ...base.policy, config, name: spec.name, weights: adaptedWeights(base.policy.weights, saved ?? initial) });
        continue;
      }
      starts.set(spec.name, { ...base.policy, name: `${spec.name}@start` });
      const weights = spec.trainable ? (saved ?? cloneWeights(base.policy.weights)) : base.policy.weights;
      policies.set(spec.name, { ...base.policy, name: spec.name, weights });
    }
    assertSharedTokenizer([...policies.values()]);
    return new PolicyPool(policies, starts, new Map(specs.map((spec) => [spec.name, spec])), tokenizer ?? fail('POLICY_INVALID', 'no policy to load'), dirs, options.versions);
  }

  get specs(): ReadonlyMap<string, PolicySpec> {
    return this.specsByName;
  }

  /**
   * A frozen copy of `of` joins the pool as `name` (a snapshot of a learner, for an opponent pool): its config and
   * starting directory, and `weights` (its own copy: a learner's live weights change under it).
   */
  addFrozen(name: string, of: string, weights: Weights): void {
    if (this.policies.has(name)) fail('POLICY_INVALID', `policy "${name}" is already in this run`, { policy: name });
    const source = this.policy(of);
    if (source.config.lora) fail('CONFIG_INVALID', `policy "${of}" has a LoRA adapter; a frozen copy of it is not supported`, { policy: of });
    this.policies.set(name, { ...source, name, weights });
    this.specsByName.set(name, { name, init: this.dir(of), trainable: false });
    this.dirs.set(name, this.dir(of));
    this.versions.set(name, 0);
  }

  get names(): string[] {
    return [...this.policies.keys()];
  }

  policy(name: string): Policy {
    return this.policies.get(name) ?? fail('POLICY_INVALID', `no policy "${name}" in this run (known: ${this.names.join(', ')})`, { policy: name });
  }

  /** The model directory a policy starts from ('default' resolved): the base an adapter is saved against. */
  dir(name: string): string {
    return this.dirs.get(name) ?? fail('POLICY_INVALID', `no policy "${name}" in this run (known: ${this.names.join(', ')})`, { policy: name });
  }

  /** The frozen weights a policy started from (for a KL toward its start), named `<name>@start`. */
  initial(name: string): Policy {
    return this.starts.get(name) ?? this.policy(name);
  }

  trainable(name: string): boolean {
    return this.specs.get(name)?.trainable ?? false;
  }

  /** How often a policy's weights changed: decoders holding an older version recompile. */
  version(name: string): number {
    return this.versions.get(name) ?? 0;
  }

  bump(name: string): void {
    this.versions.set(name, this.version(name) + 1);
  }
}
