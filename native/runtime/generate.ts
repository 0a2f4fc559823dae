import { Rng, deriveSeed } from '../../core/rng.ts';
import { soloSchedule, type AuthorSchedule } from '../../core/schedules/author-schedule.ts';
import type { Decoder } from './decoder.ts';
import { Sampler, logOf, type SamplingParams } from './sampler.ts';
import { present } from '../../core/errors.ts';

export interface GenerateOptions {
  maxNewTokens: number;
  sampling: SamplingParams;
  /** Row r samples from an RNG seeded by (seed, r), unless `rowSeeds` gives its seed. */
  seed: number;
  /** Each row's own sampling seed: a row then samples the same tokens whichever batch position it has. */
  rowSeeds?: readonly number[];
  /** Each row's own token budget (at most `maxNewTokens`). */
  rowMaxNewTokens?: readonly number[];
  /** Ends a row after the token just emitted (a stop string of its turn): its finish is then 'stop-sequence'. */
  stopWhen?: (row: number, tokens: readonly number[]) => boolean;
  stopTokens?: readonly number[];
  /** Who writes each token; one policy writes everything when absent. */
  schedule?: AuthorSchedule;
  /** Also record every partner's log-probability of each emitted token. */
  partnerLogprobs?: boolean;
  /**
   * Streamer: called after each step with the tokens just emitted (-1 for finished rows), their authors and their
   * log-probabilities. A promise it returns is awaited before the next step, so a streamer can pace generation (a
   * match watched at reading speed).
   */
  onStep?: (step: number, tokens: Int32Array, authors: Int32Array, logprobs: Float64Array) => unknown;
  signal?: AbortSignal;
}

export interface Rollout {
  prompt: number[];
  tokens: number[];
  authors: number[];
  /** Author's log-probability of each token. */
  logprobs: number[];
  /** [policy][t]: each policy's log-probability of token t, when asked. */
  partnerLogprobs?: number[][];
  finish: 'stop' | 'length' | 'stop-sequence' | 'aborted';
}

/**
 * Generates a response for every row, all policies stepped together over the shared sequence; each row's active
 * author (from the schedule) decides whose sample is kept.
 */
export async function generate(decoder: Decoder, prompts: readonly (readonly number[])[], options: GenerateOptions): Promise<Rollout[]> {
  const B = decoder.batch;
  const policies = decoder.policies.length;
  const schedule = options.schedule ?? soloSchedule();
  const stop = new Set(options.stopTokens ?? []);
  const sampler = new Sampler(decoder.vocabSize);
  const rngs = prompts.map((_, row) => new Rng(options.rowSeeds?.[row] ?? deriveSeed(options.seed, row)));
  const budget = Int32Array.from(prompts, (_, row) => Math.min(options.rowMaxNewTokens?.[row] ?? options.maxNewTokens, options.maxNewTokens));
  const rollouts: Rollout[] = prompts.map((prompt) => ({
    prompt: [...prompt],
    tokens: [],
    authors: [],
    logprobs: [],
    ...(options.partnerLogprobs ? { partnerLogprobs: Array.from({ length: policies }, () => []) } : {}),
    finish: 'length',
  }));
  const author = Int32Array.from(prompts, (_, row) => schedule.first(row));
  const done = Uint8Array.from(budget, (limit) => (limit > 0 ? 0 : 1));
  const emitted = new Int32Array(B);
  const emittedAuthors = new Int32Array(B);
  const emittedLogprobs = new Float64Array(B);
  let remaining = done.reduce((count, d) => count + (d ? 0 : 1), 0);

  decoder.setTemperature(options.sampling.temperature);
  const route = options.partnerLogprobs ? null : new Int32Array(B);
  const routeActive = () => {
    if (route) for (let row = 0; row < B; row++) route[row] = done[row] ? -1 : author[row];
    return route;
  };
  let probs = await decoder.prefill(prompts, routeActive());
  for (let step = 0; step < options.maxNewTokens && remaining > 0; step++) {
    if (options.signal?.aborted) {
      for (const [row, rollout] of rollouts.entries()) if (!done[row]) rollout.finish = 'aborted';
      break;
    }
    for (let row = 0; row < B; row++) {
      if (done[row]) {
        emitted[row] = -1;
        continue;
      }
      const a = author[row];
      const { token, logprob } = sampler.sample(present(probs.of(a, row), "the distribution of the row's author"), 0, options.sampling, rngs[row]);
      const rollout = rollouts[row];
      rollout.tokens.push(token);
      rollout.authors.push(a);
      rollout.logprobs.push(logprob);
      if (rollout.partnerLogprobs) {
        for (let m = 0; m < policies; m++) {
          rollout.partnerLogprobs[m].push(m === a ? logprob : logOf(present(probs.of(m, row), "a co-decoding partner's distribution")[token]));
        }
      }
      emitted[row] = token;
      emittedAuthors[row] = a;
      emittedLogprobs[row] = logprob;
      const finish = stop.has(token) ? 'stop' : options.stopWhen?.(row, rollout.tokens) ? 'stop-sequence' : rollout.tokens.length >= budget[row] ? 'length' : undefined;
      if (finish) {
        done[row] = 1;
        rollout.finish = finish;
        remaining -= 1;
      } else {
        author[row] = schedule.next(row, token);
      }
    }
    const streamed = options.onStep?.(step, emitted, emittedAuthors, emittedLogprobs);
    if (streamed instanceof Promise) await streamed;
    if (remaining === 0 || step + 1 === options.maxNewTokens) break;
    // A finished row takes no token (-1): it stops growing, so a short prompt's row with a long budget beside it
    // never pushes a long prompt's finished row past its cache.
    probs = await decoder.step(emitted, routeActive());
  }
  return rollouts;
}
