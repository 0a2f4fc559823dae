import { fail } from '../../core/errors.ts';
import { deriveSeed } from '../../core/rng.ts';
import type { AuthorSchedule } from '../../core/schedules/author-schedule.ts';
import type { Rollout } from '../../native/runtime/generate.ts';
import type { SampleResult } from './dialect.ts';

/** Asks author `author` to continue `prefix` (the whole token prefix, prompt included) by at most `maxTokens` tokens. */
export type SpanSampler = (author: number, prefix: readonly number[], maxTokens: number, seed: number) => Promise<SampleResult>;

export interface CoWriteOptions {
  readonly row: number;
  readonly prompt: readonly number[];
  readonly budget: number;
  /** The row's sampling seed; a span starting at response position t samples from (seed, t), the first from seed itself. */
  readonly seed: number;
  readonly schedule: AuthorSchedule;
  /** Tokens asked per request: the whole budget when the schedule hands off only at ordinary stops. */
  readonly spanTokens: number;
  /** Tokens the server was told to stop after only so the client can redraw the author (step ends): not an end of the row. */
  readonly handoffStops: ReadonlySet<number>;
  readonly stopTokens: ReadonlySet<number>;
  readonly stopWhen?: (row: number, tokens: readonly number[]) => boolean;
  readonly sample: SpanSampler;
  /** Each kept token as it is kept, with its author. */
  readonly onToken?: (token: number, author: number) => unknown;
}

export interface CoWrittenRow {
  readonly rollout: Rollout;
  /** Tokens the servers generated, kept or not. */
  readonly generated: number;
  /** Requests sent. */
  readonly requests: number;
  /** Prompt-and-response tokens re-sent as prefixes (what the servers' prefix caches absorb). */
  readonly resent: number;
}

/**
 * Co-writes one row over sampling servers, exactly as the in-process decoder does: the active author is asked for a
 * span from the row's full token prefix, its tokens are fed one by one to the schedule, and the span is cut just
 * after the token at which the schedule hands the next token to another author (tandem's word handoff: after a
 * word-initial token whose coin changed the author; K tokens without one). Exact, because a prefix of a sample is a
 * sample: the kept tokens are distributed as if the author had stopped there, and a coin that keeps the author lets
 * the span run on. Stops, stop strings and budgets end the row as generate() ends it.
 */
export async function coWriteRow(options: CoWriteOptions): Promise<CoWrittenRow> {
  const { row, prompt, budget, schedule } = options;
  const rollout: Rollout = { prompt: [...prompt], tokens: [], authors: [], logprobs: [], finish: 'length' };
  let generated = 0;
  let requests = 0;
  let resent = 0;
  if (budget <= 0) return { rollout, generated, requests, resent };
  let author = schedule.first(row);
  for (;;) {
    const position = rollout.tokens.length;
    const ask = Math.min(options.spanTokens, budget - position);
    const prefix = [...prompt, ...rollout.tokens];
    const span = await options.sample(author, prefix, ask, position === 0 ? options.seed : deriveSeed(options.seed, position));
    requests += 1;
    resent += requests > 1 ? prefix.length : 0;
    generated += span.tokens.length;
    if (span.tokens.length === 0) fail('REMOTE_RESPONSE_INVALID', `row ${row}: the server returned no token for a request of ${ask} at position ${position}`, { row, position });
    let handedOff = false;
    for (const [i, token] of span.tokens.entries()) {
      rollout.tokens.push(token);
      rollout.authors.push(author);
      rollout.logprobs.push(span.logprobs[i]);
      await options.onToken?.(token, author);
      const finish = options.stopTokens.has(token) ? 'stop' : options.stopWhen?.(row, rollout.tokens) ? 'stop-sequence' : rollout.tokens.length >= budget ? 'length' : undefined;
      if (finish) {
        rollout.finish = finish;
        return { rollout, generated, requests, resent };
      }
      const next = schedule.next(row, token);
      if (next !== author) {
        author = next;
        handedOff = true;
        break;
      }
    }
    if (handedOff) continue;
    const last = span.tokens[span.tokens.length - 1];
    // The server ended the span before its length for a reason of its own (its model's EOS, a stop string it matched):
    // the row ends as the server says.
    if (span.finish !== 'length' && !options.handoffStops.has(last)) {
      rollout.finish = span.finish;
      return { rollout, generated, requests, resent };
    }
  }
}
