import { Decoder } from '../../native/runtime/decoder.ts';
import type { Device } from '../../native/ort.ts';
import type { PolicyPool } from '../policies/policy-pool.ts';

interface Entry {
  readonly decoder: Decoder;
  readonly names: readonly string[];
  readonly versions: number[];
}

/**
 * One decoder per tuple of policies stepped together: a single policy for a sequential turn, the authors of a
 * co-decoded turn in protocol order. Each is `rows` wide, created on first use and kept; a member whose policy was
 * updated since is recompiled before the decoder is handed out.
 */
/** Where a decoder pool takes its policies from, by name, with how often each changed. */
export type PolicySource = Pick<PolicyPool, 'policy' | 'version'>;

export class DecoderPool {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly policies: PolicySource,
    readonly options: { readonly rows: number; readonly maxLen: number; readonly threads?: number; readonly device?: Device },
  ) {}

  get rows(): number {
    return this.options.rows;
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
