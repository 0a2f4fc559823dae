import { fail } from '../../core/errors.ts';
import type { PolicySource } from '../../engine/match/decoder-pool.ts';
import { loadAdapter } from '../../native/io/adapter.ts';
import { adaptedWeights, initAdapter, withAdapter } from '../../native/model/lora.ts';
import { weightsBytes } from '../../native/model/weights.ts';
import { assertSharedTokenizer, type Policy } from '../../native/runtime/policy.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';
import type { AdapterRecord } from './entrants.ts';

/** Where an entrant's current weights are: a model directory, or an adapter (in `dir`, or fresh from its seed) over a base. */
export interface EntrantWeights {
  readonly dir: string;
  readonly trainable: boolean;
  readonly adapter?: AdapterRecord;
}

interface Held {
  readonly policy: Policy;
  /** The full weight copy it reads: `dir:<base>` (shared by frozen entrants of a directory and adapters on it) or `own:<entrant>`. */
  readonly copy: string;
  readonly adapter: boolean;
  /** Bytes of the full copy it reads, and of its own adapter tensors. */
  readonly copyBytes: number;
  readonly adapterBytes: number;
}

/**
 * Entrants' weights, loaded as they play and forgotten least recently used first: at most `copies` full weight copies
 * and `adapters` adapters in memory. Frozen entrants of one directory and every adapter on it read one copy of that
 * directory's weights, loaded once while any of them is held; a trainable full entrant owns a copy its learner updates
 * in place, a trainable adapter only its adapter's tensors. Everything in use is pinned by `use` until the next call,
 * so a batch's entrants are never evicted under it, and a base is dropped only when no held entrant reads it.
 */
export class EntrantCache implements PolicySource {
  private readonly held = new Map<string, Held>();
  private readonly bases = new Map<string, Policy>();
  private readonly versions = new Map<string, number>();
  private pinned = new Set<string>();
  /** Most full weight copies loaded at once, over the cache's life (for the bench and the memory test). */
  peak = 0;
  /** Most adapters loaded at once. */
  peakAdapters = 0;
  /** Most bytes of weights held at once: each full copy once, plus every adapter's tensors. */
  peakBytes = 0;
  /** Full weight copies read from disk, over the cache's life: a base shared by adapters is read once while held. */
  weightReads = 0;

  constructor(
    private readonly capacity: { readonly copies: number; readonly adapters: number },
    /** Where an entrant's current weights are, and whether it learns; undefined for one played elsewhere (an endpoint), never loaded. */
    private readonly locate: (name: string) => EntrantWeights | undefined,
  ) {}

  /** Loads `names` (and pins them until the next call), evicting the least recently used others past capacity; entrants played elsewhere are passed over. */
  async use(names: readonly string[]): Promise<void> {
    this.pinned = new Set(names);
    for (const name of names) {
      const held = this.held.get(name);
      if (held) {
        this.held.delete(name);
        this.held.set(name, held);
        continue;
      }
      const at = this.locate(name);
      if (!at) continue;
      const entry = await this.load(name, at);
      if (this.held.size > 0) assertSharedTokenizer([this.held.values().next().value!.policy, entry.policy]);
      this.held.set(name, entry);
      this.evict();
    }
    this.peak = Math.max(this.peak, this.copies());
    this.peakAdapters = Math.max(this.peakAdapters, this.adapters());
    this.peakBytes = Math.max(this.peakBytes, this.bytes());
  }

  policy(name: string): Policy {
    return this.held.get(name)?.policy ?? fail('POLICY_INVALID', `entrant "${name}" is not loaded (the tournament loads entrants as they play)`, { entrant: name });
  }

  version(name: string): number {
    return this.versions.get(name) ?? 0;
  }

  /** A resumed entrant's version: the updates its saved weights have had. */
  restoreVersion(name: string, version: number): void {
    this.versions.set(name, version);
  }

  /** An entrant's weights changed in place: decoders holding it recompile. */
  bump(name: string): void {
    this.versions.set(name, this.version(name) + 1);
  }

  /** Distinct full weight copies in memory (a base its adapters and frozen entrants share counts once). */
  copies(): number {
    return new Set([...this.held.values()].map((h) => h.copy)).size;
  }

  /** Bytes of weights in memory: each full copy once, plus every adapter's tensors. */
  bytes(): number {
    const copies = new Map([...this.held.values()].map((h) => [h.copy, h.copyBytes]));
    return [...copies.values()].reduce((a, b) => a + b, 0) + [...this.held.values()].reduce((sum, h) => sum + h.adapterBytes, 0);
  }

  /** Adapters in memory. */
  adapters(): number {
    return [...this.held.values()].filter((h) => h.adapter).length;
  }

  private async load(name: string, at: EntrantWeights): Promise<Held> {
    if (at.adapter) {
      const base = await this.base(at.adapter.base);
      const { lora, seed } = at.adapter;
      const adapter = seed === undefined ? await loadAdapter(at.dir, base.config) : { lora, weights: initAdapter(withAdapter(base.config, lora), seed) };
      const policy = { ...base, name, config: withAdapter(base.config, adapter.lora), weights: adaptedWeights(base.weights, adapter.weights) };
      return { policy, copy: `dir:${at.adapter.base}`, adapter: true, copyBytes: weightsBytes(base.weights), adapterBytes: weightsBytes(adapter.weights) };
    }
    if (at.trainable) {
      this.weightReads += 1;
      const { policy } = await loadPolicy(at.dir, name);
      return { policy: { ...policy, name }, copy: `own:${name}`, adapter: false, copyBytes: weightsBytes(policy.weights), adapterBytes: 0 };
    }
    const base = await this.base(at.dir);
    return { policy: { ...base, name }, copy: `dir:${at.dir}`, adapter: false, copyBytes: weightsBytes(base.weights), adapterBytes: 0 };
  }

  /** A directory's full weights, read once while any held entrant reads them. */
  private async base(dir: string): Promise<Policy> {
    let base = this.bases.get(dir);
    if (!base) {
      base = (await loadPolicy(dir)).policy;
      this.weightReads += 1;
      this.bases.set(dir, base);
    }
    return base;
  }

  /** Drops unpinned entrants, least recently used first, while a bound is exceeded and dropping one frees what is over it. */
  private evict(): void {
    for (const [name, held] of this.held) {
      const overCopies = this.copies() > this.capacity.copies;
      const overAdapters = this.adapters() > this.capacity.adapters;
      if (!overCopies && !overAdapters) break;
      if (this.pinned.has(name)) continue;
      const lastOfCopy = ![...this.held].some(([other, h]) => other !== name && h.copy === held.copy);
      if ((overCopies && lastOfCopy) || (overAdapters && held.adapter)) this.held.delete(name);
    }
    const read = new Set([...this.held.values()].map((h) => h.copy));
    for (const dir of this.bases.keys()) if (!read.has(`dir:${dir}`)) this.bases.delete(dir);
  }
}
