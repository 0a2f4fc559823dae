import { randomInt } from 'node:crypto';
import { fail, present } from '../../core/errors.ts';
import { temperedLogprob } from '../../engine/trainer/reference-logprobs.ts';
import { Decoder } from '../../native/runtime/decoder.ts';
import { generate } from '../../native/runtime/generate.ts';
import type { Policy } from '../../native/runtime/policy.ts';
import { Scorer } from '../../native/runtime/scorer.ts';
import type { SamplingParams } from '../../native/runtime/sampler.ts';

/** One prompt to continue, as either API spelled it. */
export interface SampleJob {
  readonly prompt: readonly number[];
  readonly maxTokens: number;
  readonly sampling: SamplingParams;
  /** Absent: a fresh random seed. */
  readonly seed?: number;
  /** Ends the row after any of these (besides the model's EOS, unless `ignoreEos`). */
  readonly stopTokenIds: readonly number[];
  readonly stopStrings: readonly string[];
  readonly ignoreEos: boolean;
  /** Also the prompt's own tokens' log-probabilities (the first is null). */
  readonly promptLogprobs: boolean;
  /** Each token as it is decoded, with its log-probability (a stream). */
  readonly onToken?: (token: number, logprob: number) => void;
}

export interface SampleOutcome {
  readonly tokens: number[];
  /** Of the temperature-scaled, untruncated distribution: what a learner recomputes. */
  readonly logprobs: number[];
  readonly finish: 'stop' | 'length';
  /** The stop token id or stop string that ended the row; null for the model's EOS and for length. */
  readonly stopReason: number | string | null;
  readonly promptLogprobs?: (number | null)[];
}

interface Queued {
  readonly job: SampleJob;
  readonly resolve: (outcome: SampleOutcome) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * How long an idle decoder waits for one more request before decoding a batch that is not full, and for all of them
 * at most (ours: measured in `ludus bench remote`).
 */
const GATHER_MS = 2;
const GATHER_MAX_MS = 20;

/**
 * Serves one model: requests queue, and while the decoder is busy (or for GATHER_MS when it is idle) the next ones gather; each round takes up to
 * `rows` queued requests with the same sampling parameters and decodes them as one batch (each row from its own seed,
 * as the in-process engine samples a sequential turn). Weight replacements queue between rounds.
 */
export class Batcher {
  private decoder: Decoder | undefined;
  private scorer: Scorer | undefined;
  private readonly queue: Queued[] = [];
  private chain: Promise<void> = Promise.resolve();
  private pumping = false;
  private gathering: NodeJS.Timeout | undefined;
  private gatherStart: number | undefined;

  constructor(
    private current: Policy,
    private readonly options: { readonly rows: number; readonly threads?: number; readonly decode: (ids: number[]) => string },
  ) {}

  get policy(): Policy {
    return this.current;
  }

  get maxLen(): number {
    return this.current.config.maxPositionEmbeddings;
  }

  submit(job: SampleJob): Promise<SampleOutcome> {
    const end = job.prompt.length + job.maxTokens;
    if (end > this.maxLen) fail('SEQUENCE_TOO_LONG', `prompt of ${job.prompt.length} tokens + ${job.maxTokens} new tokens exceeds the model's ${this.maxLen} positions`, { maxLen: this.maxLen });
    for (const id of job.prompt) if (id >= this.policy.config.vocabSize) fail('REQUEST_INVALID', `prompt token ${id} is outside the vocabulary [0, ${this.policy.config.vocabSize})`, { field: 'prompt' });
    const outcome = new Promise<SampleOutcome>((resolve, reject) => this.queue.push({ job, resolve, reject }));
    if (this.pumping) return outcome;
    // An idle decoder waits a moment for the requests sent with this one (each arrives on its own socket), unless a batch is full.
    if (this.queue.length >= this.options.rows) {
      clearTimeout(this.gathering);
      this.gathering = undefined;
      this.gatherStart = undefined;
      this.pump();
    } else {
      // Each arrival extends the wait by GATHER_MS, up to GATHER_MAX_MS after the first.
      this.gatherStart ??= performance.now();
      clearTimeout(this.gathering);
      this.gathering = setTimeout(() => {
        this.gathering = undefined;
        this.gatherStart = undefined;
        if (!this.pumping) this.pump();
      }, Math.max(0, Math.min(GATHER_MS, this.gatherStart + GATHER_MAX_MS - performance.now())));
    }
    return outcome;
  }

  /** Swaps in new weights once the batch decoding now has finished. */
  replace(policy: Policy): Promise<void> {
    return this.serialize(async () => {
      this.current = policy;
      await this.decoder?.updatePolicy(0, policy);
      await this.scorer?.release();
      this.scorer = undefined;
    });
  }

  async release(): Promise<void> {
    await this.serialize(async () => {
      await this.decoder?.release();
      await this.scorer?.release();
      this.decoder = undefined;
      this.scorer = undefined;
    });
  }

  private pump(): void {
    this.pumping = true;
    void this.serialize(async () => {
      while (this.queue.length > 0) {
        const key = samplingKey(this.queue[0].job);
        const round: Queued[] = [];
        for (let i = 0; i < this.queue.length && round.length < this.options.rows; ) {
          if (samplingKey(this.queue[i].job) === key) round.push(...this.queue.splice(i, 1));
          else i += 1;
        }
        try {
          const outcomes = await this.decodeRound(round.map((q) => q.job));
          round.forEach((q, i) => q.resolve(outcomes[i]));
        } catch (error) {
          for (const q of round) q.reject(error);
        }
      }
    }).finally(() => {
      this.pumping = false;
      if (this.queue.length > 0) this.pump();
    });
  }

  private serialize(task: () => Promise<void>): Promise<void> {
    const run = this.chain.then(task);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async decodeRound(jobs: readonly SampleJob[]): Promise<SampleOutcome[]> {
    this.decoder ??= await Decoder.create([this.policy], { batch: this.options.rows, maxLen: this.maxLen, threads: this.options.threads });
    const rows = this.options.rows;
    const pad = <T>(values: readonly T[], filler: T): T[] => [...values, ...Array<T>(rows - values.length).fill(filler)];
    const seeds = jobs.map((job) => job.seed ?? randomInt(2 ** 32));
    const first = jobs[0];
    const eos = first.ignoreEos ? [] : this.policy.config.eosTokenIds;
    const stopIds = jobs.map((job) => new Set(job.stopTokenIds));
    const matchesString = (row: number, tokens: readonly number[]) => {
      const text = this.options.decode(tokens.slice(-Math.max(0, ...jobs[row].stopStrings.map((s) => s.length)) - 1));
      return jobs[row].stopStrings.find((stop) => text.includes(stop));
    };
    const rollouts = await generate(this.decoder, pad(jobs.map((job) => job.prompt), first.prompt), {
      maxNewTokens: Math.max(...jobs.map((job) => job.maxTokens)),
      rowMaxNewTokens: pad(jobs.map((job) => job.maxTokens), 0),
      rowSeeds: pad(seeds, 0),
      seed: 0,
      sampling: first.sampling,
      stopTokens: eos,
      stopWhen: (row, tokens) => row < jobs.length && (stopIds[row].has(tokens[tokens.length - 1]) || matchesString(row, tokens) !== undefined),
      ...(jobs.some((job) => job.onToken)
        ? {
            onStep: (_step: number, tokens: Int32Array, _authors: Int32Array, logprobs: Float64Array) =>
              jobs.forEach((job, row) => {
                if (tokens[row] >= 0) job.onToken?.(tokens[row], logprobs[row]);
              }),
          }
        : {}),
    });
    return Promise.all(
      jobs.map(async (job, row) => {
        const rollout = rollouts[row];
        const last = rollout.tokens[rollout.tokens.length - 1];
        const stopReason = rollout.finish !== 'stop-sequence' ? null : stopIds[row].has(last) ? last : (matchesString(row, rollout.tokens) ?? null);
        return {
          tokens: rollout.tokens,
          logprobs: rollout.logprobs,
          finish: rollout.finish === 'length' ? 'length' : 'stop',
          stopReason,
          ...(job.promptLogprobs ? { promptLogprobs: await this.promptLogprobs(job) } : {}),
        } satisfies SampleOutcome;
      }),
    );
  }

  /**
   * Teacher-forced log-probabilities of the prompt's tokens from the raw logits, whatever the job's temperature: as
   * vLLM's prompt_logprobs and SGLang's input_token_logprobs are, so that loopback tests meet what the real servers do.
   */
  /**
   * The next-token log-distribution (temperature 1) after every position of `sequence`, [length × V]: what top-k
   * alternatives are read from. Runs between decoding rounds, as a weight replacement does.
   */
  async distributions(sequence: readonly number[]): Promise<Float32Array> {
    let full: Float32Array | undefined;
    await this.serialize(async () => {
      this.scorer ??= await Scorer.create(this.policy, { threads: this.options.threads });
      [{ full }] = await this.scorer.score([sequence], { full: true });
    });
    return present(full, 'the distributions scored with { full: true }');
  }

  private async promptLogprobs(job: SampleJob): Promise<(number | null)[]> {
    this.scorer ??= await Scorer.create(this.policy, { threads: this.options.threads });
    const [scored] = await this.scorer.score([job.prompt], { full: true });
    const V = this.policy.config.vocabSize;
    return job.prompt.map((token, t) => (t === 0 ? null : temperedLogprob(present(scored.full, 'the distributions scored with { full: true }').subarray((t - 1) * V, t * V), token, 1)));
  }
}

function samplingKey(job: SampleJob): string {
  return `${job.sampling.temperature}|${job.sampling.topP}|${job.sampling.topK}|${job.ignoreEos}`;
}
