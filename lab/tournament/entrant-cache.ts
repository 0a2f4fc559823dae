import { fail } from '../../core/errors.ts';
import type { PolicySource } from '../../engine/match/decoder-pool.ts';
import { assertSharedTokenizer, type Policy } from '../../native/runtime/policy.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';

interface Held {
  readonly policy: Policy;
  /** The directory its weights came from; frozen entrants of one directory share them. */
  readonly dir: string;
  readonly trainable: boolean;
}

/**
 * Entrants' weights, loaded as they play and forgotten least recently used first: at most `capacity` weight copies
 * in memory (frozen entrants from one directory share a copy; a trainable entrant owns one its learner updates in
 * place). Everything in use is pinned by `use` until the next call, so a batch's entrants are never evicted under it.
 */
export class EntrantCache implements PolicySource {
  private readonly held = new Map<string, Held>();
  private readonly versions = new Map<string, number>();
  private pinned = new Set<string>();
  /** Most loaded at once, over the cache's life (for the bench and the memory test). */
  peak = 0;

  constructor(
    private readonly capacity: number,
    /** Where an entrant's current weights are, and whether it learns. */
    private readonly locate: (name: string) => { dir: string; trainable: boolean },
  ) {}

  /** Loads `names` (and pins them until the next call), evicting the least recently used others past capacity. */
  async use(names: readonly string[]): Promise<void> {
    this.pinned = new Set(names);
    for (const name of names) {
      const held = this.held.get(name);
      if (held) {
        this.held.delete(name);
        this.held.set(name, held);
        continue;
      }
      const { dir, trainable } = this.locate(name);
      const sharing = trainable ? undefined : [...this.held.values()].find((h) => !h.trainable && h.dir === dir);
      const policy = sharing ? { ...sharing.policy, name } : { ...(await loadPolicy(dir, name)).policy, name };
      if (this.held.size > 0) assertSharedTokenizer([this.held.values().next().value!.policy, policy]);
      this.held.set(name, { policy, dir, trainable });
      this.evict();
    }
    this.peak = Math.max(this.peak, this.copies());
  }

  policy(name: string): Policy {
    return this.held.get(name)?.policy ?? fail('POLICY_INVALID', `entrant "${name}" is not loaded (the tournament loads entrants as they play)`, { entrant: name });
  }

  version(name: string): number {
    return this.versions.get(name) ?? 0;
  }

  /** An entrant's weights changed in place: decoders holding it recompile. */
  bump(name: string): void {
    this.versions.set(name, this.version(name) + 1);
  }

  /** Distinct weight copies in memory. */
  copies(): number {
    return new Set([...this.held.values()].map((h) => (h.trainable ? `trainable:${h.policy.name}` : `dir:${h.dir}`))).size;
  }

  private evict(): void {
    for (const [name] of this.held) {
      if (this.copies() <= this.capacity) return;
      if (!this.pinned.has(name)) this.held.delete(name);
    }
  }
}
