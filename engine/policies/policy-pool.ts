import { fail } from '../../core/errors.ts';
import { pathExists } from '../../native/io/files.ts';
import { cloneWeights, type Weights } from '../../native/model/weights.ts';
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
}

/**
 * The policies of a run by name. Frozen policies that start from the same directory share one copy of its weights;
 * a trainable policy owns a copy its learner updates in place (`bump` after each update, so decoders recompile).
 * Every policy must read tokens the same way: one tokenizer for the pool.
 */
export class PolicyPool {
  private readonly versions = new Map<string, number>();

  private constructor(
    private readonly policies: ReadonlyMap<string, Policy>,
    private readonly starts: ReadonlyMap<string, Policy>,
    readonly specs: ReadonlyMap<string, PolicySpec>,
    readonly tokenizer: TextTokenizer,
  ) {
    for (const name of policies.keys()) this.versions.set(name, 0);
  }

  /**
   * Loads every policy; `weights` replaces a trainable policy's starting weights (a resumed run's checkpoint).
   * A directory that does not exist, or holds no tokenizer, is a coded error naming the policy.
   */
  static async load(specs: readonly PolicySpec[], options: { task: string; weights?: ReadonlyMap<string, Weights> }): Promise<PolicyPool> {
    const dirs = new Map(specs.map((spec) => [spec.name, resolveModelDir(spec.init, options.task)]));
    for (const spec of specs) {
      const dir = dirs.get(spec.name)!;
      if (!(await pathExists(dir))) fail('POLICY_INVALID', `policy "${spec.name}": ${dir} does not exist`, { policy: spec.name, dir });
    }
    const loaded = new Map<string, LoadedPolicy>();
    for (const dir of new Set(dirs.values())) loaded.set(dir, await loadPolicy(dir));
    const policies = new Map<string, Policy>();
    const starts = new Map<string, Policy>();
    let tokenizer: TextTokenizer | undefined;
    for (const spec of specs) {
      const dir = dirs.get(spec.name)!;
      const base = loaded.get(dir)!;
      tokenizer ??= base.tokenizer ?? fail('POLICY_INVALID', `policy "${spec.name}": ${dir} has no tokenizer.json, which matches need`, { policy: spec.name, dir });
      starts.set(spec.name, { ...base.policy, name: `${spec.name}@start` });
      const weights = spec.trainable ? (options.weights?.get(spec.name) ?? cloneWeights(base.policy.weights)) : base.policy.weights;
      policies.set(spec.name, { ...base.policy, name: spec.name, weights });
    }
    assertSharedTokenizer([...policies.values()]);
    return new PolicyPool(policies, starts, new Map(specs.map((spec) => [spec.name, spec])), tokenizer!);
  }

  get names(): string[] {
    return [...this.policies.keys()];
  }

  policy(name: string): Policy {
    return this.policies.get(name) ?? fail('POLICY_INVALID', `no policy "${name}" in this run (known: ${this.names.join(', ')})`, { policy: name });
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
