import { fail } from '../../core/errors.ts';
import { deriveSeed } from '../../core/rng.ts';
import type { Rollout } from '../../native/runtime/generate.ts';
import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import type { MatchRuntime, RolloutCall, RolloutResult } from '../match/runtime.ts';
import type { EndpointClient, EndpointUsage } from './endpoint-client.ts';

/**
 * A runtime in which some policies are endpoints: their calls go to their endpoint a row at a time (all rows at
 * once, within the endpoint's concurrency), every other call to `inner`. An endpoint reads the prompt as text (the
 * arena's tokenizer decodes it) and answers text, which the same tokenizer encodes for the transcript: an end-of-text
 * token closes a turn the model ended, and the tokens carry log-probability 0, since a frozen endpoint's are never
 * trained or scored; a turn the endpoint says ended at a stop string keeps it, as a turn decoded here does (finish
 * `stop-sequence`). An endpoint cannot write a co-decoded turn: word handoff needs every author's log-probability
 * of every token, which text does not carry.
 */
export class EndpointRuntime implements MatchRuntime {
  constructor(
    private readonly inner: MatchRuntime,
    private readonly endpoints: ReadonlyMap<string, EndpointClient>,
    private readonly tokenizer: Pick<TextTokenizer, 'encode' | 'decode'>,
  ) {}

  get rows(): number {
    return this.inner.rows;
  }

  get maxLen(): number {
    return this.inner.maxLen;
  }

  /** Each endpoint's usage so far, by policy name. */
  usage(): Record<string, EndpointUsage> {
    return Object.fromEntries([...this.endpoints].map(([name, client]) => [name, client.usage]));
  }

  stackKey(policy: string): string | undefined {
    return this.endpoints.has(policy) ? undefined : this.inner.stackKey?.(policy);
  }

  async generate(call: RolloutCall): Promise<RolloutResult> {
    const remote = call.policies.filter((policy) => this.endpoints.has(policy));
    if (remote.length === 0) return this.inner.generate(call);
    if (call.schedule || call.partnerLogprobs || call.policies.length > 1) {
      return fail(
        'REMOTE_UNSUPPORTED',
        `policy "${remote[0]}" is bound to an endpoint, which answers text: it cannot co-write a turn with ${call.policies.filter((p) => p !== remote[0]).join(', ') || 'another policy'} token by token (word handoff needs each author's log-probability of every token, which an endpoint does not give). Seat it where it writes whole turns: a sequential game's role, a world game's player, tandem's junior with handoff "step"`,
        { policy: remote[0] },
      );
    }
    const client = this.endpoints.get(remote[0])!;
    const stop = call.stopTokens[0];
    const rollouts = await Promise.all(
      call.prompts.map(async (prompt, row): Promise<Rollout> => {
        const budget = call.rowMaxNewTokens?.[row] ?? call.maxNewTokens;
        const answer = await client.complete(this.tokenizer.decode([...prompt]), {
          maxTokens: budget,
          ...(call.stopStrings?.[row]?.length ? { stop: call.stopStrings[row] } : {}),
          seed: call.rowSeeds?.[row] ?? deriveSeed(call.seed, row),
        });
        // A stop string the endpoint names goes back into the text, as a turn decoded here keeps it.
        const encoded = this.tokenizer.encode(answer.text + (answer.stopString ?? ''));
        // The endpoint counts its own tokens: its text may take more of ours than the budget, which cuts it there.
        const atStop = answer.stopString !== undefined && encoded.length <= budget;
        const ended = !atStop && answer.finish !== 'length' && encoded.length < budget;
        const tokens = encoded.slice(0, budget);
        if (ended && stop !== undefined) tokens.push(stop);
        const finish = atStop ? 'stop-sequence' : ended ? 'stop' : 'length';
        return { prompt: [...prompt], tokens, authors: tokens.map(() => 0), logprobs: tokens.map(() => 0), finish };
      }),
    );
    return { rollouts, versions: [0] };
  }

  release(): Promise<void> {
    return this.inner.release();
  }
}
