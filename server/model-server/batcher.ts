import { randomInt } from 'node:crypto';
import { LudusError, fail, present } from '../../core/errors.ts';
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
  /** Aborted when the client went away: the row leaves the queue, or ends at its next token. */
  readonly signal?: AbortSignal;
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
 * A decoding round gives the event loop a turn at least this often (ours): onnxruntime runs hold the thread, so
 * without it no other request, health check or client's departure is seen until the round ends.
 */
const YIELD_EVERY_MS = 10;

/** A row's end: its outcome, or the error that ended it alone. */
type RowResult = { readonly outcome: SampleOutcome } | { readonly error: unknown };

const gone = () => new LudusError('REQUEST_INVALID', 'the client went away before its answer; its rows were cancelled');

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
  /** Rows decoded or cancelled so far, and the rows queued or decoding now. */
  private readonly counts = { decoded: 0, cancelled: 0, running: 0 };

  constructor(
    private current: Policy,
    private readonly options: { readonly rows: number; readonly threads?: number; readonly decode: (ids: number[]) => string },
  ) {}

  get policy(): Policy {
    return this.current;
  }

  /** Rows decoded to their end, rows cancelled because their client went away, and rows queued or decoding now. */
  get stats(): { readonly decoded: number; readonly cancelled: number; readonly pending: number } {
    return { decoded: this.counts.decoded, cancelled: this.counts.cancelled, pending: this.queue.length + this.counts.running };
  }

  get maxLen(): number {
    return this.current.config.maxPositionEmbeddings;
  }

  submit(job: SampleJob): Promise<SampleOutcome> {
    const end = job.prompt.length + job.maxTokens;
    if (end > this.maxLen) fail('SEQUENCE_TOO_LONG', `prompt of ${job.prompt.length} tokens + ${job.maxTokens} new tokens exceeds the model's ${this.maxLen} positions`, { maxLen: this.maxLen });
    for (const id of job.prompt) if (id >= this.policy.config.vocabSize) fail('REQUEST_INVALID', `prompt token ${id} is outside the vocabulary [0, ${this.policy.config.vocabSize})`, { field: 'prompt' });
    if (job.signal?.aborted) return Promise.reject(gone());
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
        this.dropDeparted();
        if (this.queue.length === 0) break;
        const key = samplingKey(this.queue[0].job);
        const round: Queued[] = [];
        for (let i = 0; i < this.queue.length && round.length < this.options.rows; ) {
          if (samplingKey(this.queue[i].job) === key) round.push(...this.queue.splice(i, 1));
          else i += 1;
        }
        this.counts.running = round.length;
        const results = await this.decodeIsolated(round.map((q) => q.job));
        this.counts.running = 0;
        round.forEach((q, i) => {
          const result = results[i];
          if ('outcome' in result) {
            this.counts.decoded += 1;
            q.resolve(result.outcome);
          } else {
            if (q.job.signal?.aborted) this.counts.cancelled += 1;
            q.reject(result.error);
          }
        });
      }
    }).finally(() => {
      this.pumping = false;
      if (this.queue.length > 0) this.pump();
    });
  }

  /**
   * Queued requests whose clients went away leave the queue before the next round is formed (a row being decoded ends
   * at its next token instead). Checked then rather than on each signal's abort: a request's rows share one signal.
   */
  private dropDeparted(): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const queued = this.queue[i];
      if (!queued.job.signal?.aborted) continue;
      this.queue.splice(i, 1);
      this.counts.cancelled += 1;
      queued.reject(gone());
    }
  }

  /**
   * A round whose failure is its rows' own: a row whose callbacks throw ends alone (decodeRound), and when the round
   * fails as a whole each of its rows is decoded again by itself, so only the row that fails alone gets the error.
   */
  private async decodeIsolated(jobs: readonly SampleJob[]): Promise<RowResult[]> {
    try {
      return await this.decodeRound(jobs);
    } catch (error) {
      if (jobs.length === 1) return [{ error }];
      const results: RowResult[] = [];
      for (const job of jobs) results.push(...(await this.decodeRound([job]).catch((alone: unknown) => [{ error: alone }])));
      return results;
    }
  }

  private serialize(task: () => Promise<void>): Promise<void> {
    const run = this.chain.then(task);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /**
   * One batch of rows decoded together. A row whose own callbacks throw (its stop strings, its stream) or whose
   * client went away ends there, alone; the others decode on. Every step gives the event loop a turn within
   * YIELD_EVERY_MS.
   */
  private async decodeRound(jobs: readonly SampleJob[]): Promise<RowResult[]> {
    this.decoder ??= await Decoder.create([this.policy], { batch: this.options.rows, maxLen: this.maxLen, threads: this.options.threads });
    const rows = this.options.rows;
    const pad = <T>(values: readonly T[], filler: T): T[] => [...values, ...Array<T>(rows - values.length).fill(filler)];
    const seeds = jobs.map((job) => job.seed ?? randomInt(2 ** 32));
    const first = jobs[0];
    const eos = first.ignoreEos ? [] : this.policy.config.eosTokenIds;
    const stopIds = jobs.map((job) => new Set(job.stopTokenIds));
    const longestStop = jobs.map((job) => job.stopStrings.reduce((most, stop) => Math.max(most, stop.length), 0));
    const matchesString = (row: number, tokens: readonly number[]) => {
      if (longestStop[row] === 0) return undefined;
      const text = this.options.decode(tokens.slice(-longestStop[row] - 1));
      return jobs[row].stopStrings.find((stop) => text.includes(stop));
    };
    const failed = new Map<number, unknown>();
    /** Runs a row's own code; a throw ends that row with the error (and `ended` is answered for it). */
    const ownCode = <T>(row: number, run: () => T, ended: T): T => {
      if (failed.has(row)) return ended;
      try {
        return run();
      } catch (error) {
        failed.set(row, error);
        return ended;
      }
    };
    let yielded = performance.now();
    const rollouts = await generate(this.decoder, pad(jobs.map((job) => job.prompt), first.prompt), {
      maxNewTokens: Math.max(...jobs.map((job) => job.maxTokens)),
      rowMaxNewTokens: pad(jobs.map((job) => job.maxTokens), 0),
      rowSeeds: pad(seeds, 0),
      seed: 0,
      sampling: first.sampling,
      stopTokens: eos,
      stopWhen: (row, tokens) => {
        if (row >= jobs.length) return false;
        if (jobs[row].signal?.aborted && !failed.has(row)) failed.set(row, gone());
        return ownCode(row, () => stopIds[row].has(tokens[tokens.length - 1]) || matchesString(row, tokens) !== undefined, true);
      },
      onStep: (_step: number, tokens: Int32Array, _authors: Int32Array, logprobs: Float64Array) => {
        jobs.forEach((job, row) => {
          if (tokens[row] >= 0 && job.onToken) ownCode(row, () => job.onToken?.(tokens[row], logprobs[row]), undefined);
        });
        if (performance.now() - yielded < YIELD_EVERY_MS) return;
        return new Promise<void>((resolve) =>
          setImmediate(() => {
            yielded = performance.now();
            resolve();
          }),
        );
      },
    });
    return Promise.all(
      jobs.map(async (job, row): Promise<RowResult> => {
        if (failed.has(row)) return { error: failed.get(row) };
        const rollout = rollouts[row];
        const last = rollout.tokens[rollout.tokens.length - 1];
        try {
          const stopReason = rollout.finish !== 'stop-sequence' ? null : stopIds[row].has(last) ? last : (matchesString(row, rollout.tokens) ?? null);
          const outcome: SampleOutcome = {
            tokens: rollout.tokens,
            logprobs: rollout.logprobs,
            finish: rollout.finish === 'length' ? 'length' : 'stop',
            stopReason,
            ...(job.promptLogprobs ? { promptLogprobs: await this.promptLogprobs(job) } : {}),
          };
          return { outcome };
        } catch (error) {
          return { error };
        }
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
