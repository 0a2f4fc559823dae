import { fail } from '../../core/errors.ts';
import { Distributions, LockstepDecoder, type Decoder, type DecoderOptions, type Route } from './decoder.ts';
import { assertSharedTokenizer, type Policy } from './policy.ts';

/**
 * Co-decoding where each policy has its own caches and catches up lazily: tokens written by a partner queue up
 * per (policy, row), and a policy reads its whole queue in one multi-token run when it must next give a
 * distribution for that row. Every policy still sees exactly the shared sequence; only when it reads it changes.
 * At small batches a decode step costs about one read of the weights, so a policy that is not writing costs
 * nothing until its next turn, and then one read for its whole backlog.
 */
export class LazyDecoder implements Decoder {
  readonly lengths: Int32Array;
  private readonly pending: number[][][];
  private readonly idle: Int32Array;

  private constructor(private readonly members: LockstepDecoder[]) {
    const batch = members[0].batch;
    this.lengths = new Int32Array(batch);
    this.pending = members.map(() => Array.from({ length: batch }, () => []));
    this.idle = new Int32Array(batch).fill(-1);
  }

  static async create(policies: Policy[], options: DecoderOptions): Promise<LazyDecoder> {
    if (policies.length === 0) fail('INPUT_INVALID', 'a decoder needs at least one policy');
    assertSharedTokenizer(policies);
    const members = await Promise.all(policies.map((policy) => LockstepDecoder.create([policy], options)));
    return new LazyDecoder(members);
  }

  get policies(): readonly Policy[] {
    return this.members.map((m) => m.policies[0]);
  }

  get batch(): number {
    return this.members[0].batch;
  }

  get vocabSize(): number {
    return this.members[0].vocabSize;
  }

  get cacheBytes(): number {
    return this.members.reduce((a, m) => a + m.cacheBytes, 0);
  }

  setTemperature(temperatures: number | ArrayLike<number>): void {
    for (const member of this.members) member.setTemperature(temperatures);
  }

  async updatePolicy(index: number, policy: Policy): Promise<void> {
    assertSharedTokenizer(this.policies.map((p, i) => (i === index ? policy : p)));
    await this.members[index].updatePolicy(0, policy);
  }

  async prefill(prompts: readonly (readonly number[])[], route: Route = null): Promise<Distributions> {
    if (prompts.length !== this.batch) fail('INPUT_INVALID', `prefill needs ${this.batch} prompts, got ${prompts.length}`);
    for (const member of this.members) member.reset();
    for (const queues of this.pending) for (const queue of queues) queue.length = 0;
    this.lengths.fill(0);
    for (const [row, prompt] of prompts.entries()) if (prompt.length === 0) fail('INPUT_INVALID', `prompt ${row} is empty`, { row });
    return this.append(prompts, route);
  }

  async append(chunks: readonly (readonly number[])[], route: Route = null): Promise<Distributions> {
    if (chunks.length !== this.batch) fail('INPUT_INVALID', `append needs ${this.batch} rows, got ${chunks.length}`);
    for (const [row, chunk] of chunks.entries()) {
      for (const queues of this.pending) queues[row].push(...chunk);
      this.lengths[row] += chunk.length;
    }
    return this.catchUp(route);
  }

  async step(tokens: ArrayLike<number>, route: Route = null): Promise<Distributions> {
    for (let row = 0; row < this.batch; row++) {
      for (const queues of this.pending) queues[row].push(tokens[row]);
      this.lengths[row] += 1;
    }
    return this.catchUp(route);
  }

  /** Runs each policy that owes a distribution on its queued tokens for the rows it owes. */
  private async catchUp(route: Route): Promise<Distributions> {
    const parts: Array<Distributions | null> = [];
    for (const [m, member] of this.members.entries()) {
      const chunks: number[][] = [];
      let owed = 0;
      for (let row = 0; row < this.batch; row++) {
        const wanted = route === null || route[row] === m;
        const queue = this.pending[m][row];
        if (wanted && queue.length === 0) fail('INPUT_INVALID', `policy ${m} was asked again about row ${row} with no new token`, { row });
        chunks.push(wanted ? queue.splice(0) : []);
        owed += wanted ? 1 : 0;
      }
      if (owed === 0) {
        parts.push(null);
        continue;
      }
      const memberRoute = Int32Array.from(chunks, (c) => (c.length > 0 ? 0 : -1));
      parts.push(await member.append(chunks, memberRoute));
    }
    const V = this.vocabSize;
    return new Distributions(
      parts.map((p) => p?.probs[0] ?? new Float32Array(0)),
      parts.map((p) => (p ? Int32Array.from(p.index[0]) : this.idle)),
      V,
    );
  }

  async release(): Promise<void> {
    await Promise.all(this.members.map((m) => m.release()));
  }
}
