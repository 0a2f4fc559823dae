import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { WORD_HANDOFF_DEFAULTS } from '../../core/protocols/co-decoding.ts';
import type { ScheduleSpec } from '../../core/schedules/spec.ts';
import { DecoderPool } from '../../engine/match/decoder-pool.ts';
import type { MatchRuntime, RolloutCall } from '../../engine/match/runtime.ts';
import { PolicyPool } from '../../engine/policies/policy-pool.ts';
import type { SampleRequest } from '../../engine/remote/dialect.ts';
import { HttpRuntime } from '../../engine/remote/http-runtime.ts';
import { ServerPool } from '../../engine/remote/server-pool.ts';
import { sglangDialect } from '../../engine/remote/sglang-dialect.ts';
import { median } from '../../native/bench/engine-bench.ts';
import { RolloutServersSchema, TrainerServerSchema } from '../../engine/remote/remote-config.ts';
import { taskByName } from '../../plugins/tasks/registry.ts';
import { wordBoundary } from '../../plugins/tokenizers/word-boundary.ts';
import { newControlToken } from '../../server/control-token.ts';
import { startModelServer } from '../../server/model-server/model-server.ts';
import { startTrainerServer } from '../../server/trainer-server/trainer-server.ts';
import { Rng } from '../../core/rng.ts';
import { RemoteLearner } from '../../engine/remote/remote-learner.ts';
import { fingerprint } from '../../engine/remote/trainer-wire.ts';
import type { TrainingBackend } from '../../engine/trainer/training-backend.ts';
import { Learner } from '../../native/train/learner.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';
import { entryOf } from '../../core/errors.ts';

export interface RemoteBenchOptions {
  /** Model directory both policies start from, or 'default'. */
  readonly model: string;
  readonly task: string;
  /** Rows per call: the in-process decoder's batch and the server's. */
  readonly rows: number;
  /** Tokens per row (no stop token: every row writes its whole budget on both sides). */
  readonly tokens: number;
  /** Span lengths of span-and-cut tandem measured. */
  readonly spans: readonly number[];
  /** Interleaved repeats; medians are reported. */
  readonly repeats: number;
  readonly threads: number;
  /** Timed optimizer steps of the trainer-API comparison, interleaved with the in-process learner's. */
  readonly trainSteps: number;
  readonly onProgress?: (label: string) => void;
}

export interface SpanRun {
  readonly spanTokens: number;
  readonly tokS: number;
  /** HTTP tok/s over in-process tok/s, same rows and schedule. */
  readonly overInProcess: number;
  /** Tokens the server generated and the client cut: (generated − kept) / generated. */
  readonly wastedFraction: number;
  readonly requestsPerRow: number;
  /** Prefix tokens re-sent per kept token (what a prefix cache absorbs). */
  readonly resentPerKept: number;
}

export interface RemoteBenchReport {
  readonly workload: { model: string; rows: number; tokens: number; repeats: number; threads: number; loadAverage: number };
  /** Solo rows: in-process decoding against the same rows through `ludus serve-model` on loopback (one request per row). */
  readonly solo: { readonly inProcessTokS: number; readonly httpTokS: number; readonly httpOverInProcess: number };
  /** Tandem's word handoff (p, K of the paper): in-process co-decoding against span-and-cut over HTTP. */
  readonly tandem: { readonly inProcessTokS: number; readonly bySpan: readonly SpanRun[] };
  /**
   * One policy-gradient step (rows × tokens) by the in-process learner against the same step through `ludus
   * serve-trainer` on loopback (forward_backward, optim_step, save_weights_for_sampler with the weights back).
   */
  readonly trainer: { readonly parameters: number; readonly inProcessMs: number; readonly apiMs: number; readonly apiOverInProcess: number; readonly identical: boolean };
  /**
   * Solo rows that stop at EOS, sent in SGLang's dialect: the tokens the server generates as ludus asks now (stopping
   * at EOS, which the stop ids hold) and as it asked before (`ignore_eos: true`, under which SGLang ignores
   * `stop_token_ids` and runs every row to its budget, as `ludus serve-model` does too), against the tokens kept.
   */
  readonly sglangStops: { readonly kept: number; readonly generated: number; readonly generatedIgnoringEos: number };
}

/**
 * The HTTP runtime's cost, side by side in one process: the same rows decoded by the in-process decoders and by
 * `ludus serve-model` on loopback (started here, same threads and batch), solo and co-written by span-and-cut, with
 * the tokens span-and-cut throws away. Both sides run in this process, so the server's JSON and the client's share
 * one event loop, as they would not across machines.
 */
export async function benchRemote(options: RemoteBenchOptions): Promise<RemoteBenchReport> {
  const progress = options.onProgress ?? (() => {});
  const pool = await PolicyPool.load(['senior', 'junior'].map((name) => ({ name, init: options.model, trainable: false })), { task: options.task });
  const maxLen = pool.policy('senior').config.maxPositionEmbeddings;
  const problems = (await taskByName(options.task)).problems('test', options.rows);
  const prompts = problems.map((problem) => pool.tokenizer.encode(problem.prompt));
  const token = newControlToken();
  const server = await startModelServer({ model: options.model, task: options.task, name: 'base', host: '127.0.0.1', port: 0, rows: options.rows, threads: options.threads, token, allowDirs: [tmpdir()] });
  const syncDir = await mkdtemp(join(tmpdir(), 'ludus-bench-remote-'));
  const local = new DecoderPool(pool, { rows: options.rows, maxLen, threads: options.threads });
  const remote = new Map<number, HttpRuntime>();
  const http = async (spanTokens: number) => {
    let runtime = remote.get(spanTokens);
    if (!runtime) {
      const config = RolloutServersSchema.parse({ dialect: 'vllm', servers: [server.url], spanTokens, maxConcurrency: options.rows });
      runtime = await HttpRuntime.open(pool, config, { rows: options.rows, maxLen, syncDir, token });
      remote.set(spanTokens, runtime);
    }
    return runtime;
  };
  const word = (seed: number): ScheduleSpec => ({ kind: 'word', ...WORD_HANDOFF_DEFAULTS, seed, boundary: Array.from(wordBoundary(pool.tokenizer).ids) });
  const call = (seed: number, tandem: boolean): RolloutCall => ({
    policies: tandem ? ['senior', 'junior'] : ['senior'],
    prompts,
    maxNewTokens: options.tokens,
    seed,
    sampling: { temperature: 1, topK: 0, topP: 1 },
    stopTokens: [],
    ...(tandem ? { schedule: word(seed) } : {}),
  });
  const rate = async (runtime: MatchRuntime, seed: number, tandem: boolean) => {
    const started = performance.now();
    const { rollouts } = await runtime.generate(call(seed, tandem));
    return rollouts.reduce((sum, r) => sum + r.tokens.length, 0) / ((performance.now() - started) / 1000);
  };
  try {
    progress('warm-up');
    await rate(local, 0, false);
    await rate(await http(options.tokens), 0, false);
    await rate(local, 0, true);
    for (const span of options.spans) await rate(await http(span), 0, true);
    for (const runtime of remote.values()) Object.assign(runtime.traffic, { requests: 0, generated: 0, kept: 0, resent: 0, scored: 0 });
    const soloRates = { local: [] as number[], http: [] as number[] };
    const tandemRates = { local: [] as number[], bySpan: new Map(options.spans.map((span) => [span, [] as number[]])) };
    for (let repeat = 1; repeat <= options.repeats; repeat++) {
      progress(`repeat ${repeat} of ${options.repeats}: solo in-process, solo over HTTP, tandem in-process, tandem over HTTP with spans of ${options.spans.join(', ')}`);
      soloRates.local.push(await rate(local, repeat, false));
      soloRates.http.push(await rate(await http(options.tokens), repeat, false));
      tandemRates.local.push(await rate(local, repeat, true));
      for (const span of options.spans) entryOf(tandemRates.bySpan, span, 'the rates of span').push(await rate(await http(span), repeat, true));
    }
    progress('SGLang stop ids: rows stopping at EOS, with and without ignore_eos');
    const sglangStops = await sglangStopWaste(server.url, token, pool, prompts, options.tokens);
    progress(`trainer API: ${options.trainSteps} steps in-process and through ludus serve-trainer, interleaved`);
    const trainer = await benchTrainer(options);
    const solo = { inProcessTokS: median(soloRates.local), httpTokS: median(soloRates.http) };
    const tandemLocal = median(tandemRates.local);
    return {
      workload: { model: options.model, rows: options.rows, tokens: options.tokens, repeats: options.repeats, threads: options.threads, loadAverage: loadavg()[0] },
      solo: { ...solo, httpOverInProcess: solo.httpTokS / solo.inProcessTokS },
      tandem: {
        inProcessTokS: tandemLocal,
        bySpan: options.spans.map((spanTokens) => {
          const tokS = median(entryOf(tandemRates.bySpan, spanTokens, 'the rates of span'));
          const { generated, kept, requests, resent } = entryOf(remote, spanTokens, 'the remote run of span').traffic;
          return {
            spanTokens,
            tokS,
            overInProcess: tokS / tandemLocal,
            wastedFraction: (generated - kept) / generated,
            requestsPerRow: requests / (options.rows * options.repeats),
            resentPerKept: resent / kept,
          };
        }),
      },
      trainer,
      sglangStops,
    };
  } finally {
    for (const runtime of remote.values()) await runtime.release();
    await local.release();
    await server.close();
    await rm(syncDir, { recursive: true, force: true });
  }
}

/** What SGLang's ignoring of stop ids under ignore_eos costs, counted on `ludus serve-model` (which treats them as SGLang does). */
async function sglangStopWaste(url: string, token: string, pool: PolicyPool, prompts: readonly number[][], tokens: number): Promise<RemoteBenchReport['sglangStops']> {
  const servers = new ServerPool([url], { maxConcurrency: prompts.length, timeoutMs: 600_000, retries: 0, backoffMs: 0, token });
  const eos = pool.policy('senior').config.eosTokenIds;
  const counts = await Promise.all(
    prompts.map(async (prompt, row) => {
      const request: SampleRequest = { target: {}, prompt, maxTokens: tokens, temperature: 1, topP: 1, seed: row + 1, stopTokenIds: eos, stopStrings: [], eosTokenIds: eos };
      const { path, body } = sglangDialect.sample(request);
      const asked = body as { sampling_params: Record<string, unknown> };
      const generate = (ignoreEos: boolean) => servers.postTo(0, path, { ...asked, sampling_params: { ...asked.sampling_params, ignore_eos: ignoreEos } }, (json) => sglangDialect.parseSample(json, { ...request, stopTokenIds: ignoreEos ? [] : eos }));
      const [now, before] = [await generate(false), await generate(true)];
      const stop = before.tokens.findIndex((id) => eos.includes(id));
      return { kept: stop < 0 ? before.tokens.length : stop + 1, generated: now.tokens.length, generatedIgnoringEos: before.tokens.length };
    }),
  );
  return { kept: sum(counts.map((c) => c.kept)), generated: sum(counts.map((c) => c.generated)), generatedIgnoringEos: sum(counts.map((c) => c.generatedIgnoringEos)) };
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** The trainer API's cost: the same steps on two copies of the model, one learner in-process, one behind serve-trainer. */
async function benchTrainer(options: RemoteBenchOptions): Promise<RemoteBenchReport['trainer']> {
  const dir = resolveModelDir(options.model, options.task);
  const [mine, theirs] = [(await loadPolicy(dir)).policy, (await loadPolicy(dir)).policy];
  const learnerConfig = { objective: 'policy-gradient' as const, optimizer: { lr: 1e-4 }, threads: options.threads };
  const local = await Learner.create(mine.config, mine.weights, learnerConfig);
  const token = newControlToken();
  const server = await startTrainerServer({ host: '127.0.0.1', port: 0, threads: options.threads, task: options.task, token });
  try {
    const remote = await RemoteLearner.open(TrainerServerSchema.parse({ url: server.url }), { policy: theirs, baseModel: dir, task: options.task, learner: learnerConfig, token });
    const rng = new Rng(7);
    const { rows, tokens: cols } = options;
    const vocab = mine.config.vocabSize;
    const batch = {
      rows,
      cols,
      inputIds: Int32Array.from({ length: rows * cols }, () => rng.int(vocab)),
      targets: Int32Array.from({ length: rows * cols }, () => rng.int(vocab)),
      lossMask: Float32Array.from({ length: rows * cols }, (_, i) => (i % cols >= cols / 4 ? 1 : 0)),
      advantages: Float32Array.from({ length: rows }, () => rng.normal()),
    };
    const oldLogprobs = await local.score(batch);
    const timed = async (learner: TrainingBackend) => {
      const started = performance.now();
      await learner.step({ ...batch, oldLogprobs });
      return performance.now() - started;
    };
    await timed(local);
    await timed(remote);
    const times = { local: [] as number[], remote: [] as number[] };
    for (let step = 0; step < options.trainSteps; step++) {
      times.local.push(await timed(local));
      times.remote.push(await timed(remote));
    }
    await remote.release();
    const [inProcessMs, apiMs] = [median(times.local), median(times.remote)];
    return { parameters: [...local.trainable.values()].reduce((n, t) => n + t.data.length, 0), inProcessMs, apiMs, apiOverInProcess: inProcessMs / apiMs, identical: fingerprint(mine.weights) === fingerprint(theirs.weights) };
  } finally {
    await local.release();
    await server.close();
  }
}

export function formatRemoteBench(report: RemoteBenchReport): string {
  const { workload: w, solo, tandem, trainer } = report;
  return [
    `remote bench: ${w.model}, ${w.rows} rows × ${w.tokens} tokens, median of ${w.repeats}, ${w.threads} threads, ludus serve-model on loopback (load average ${w.loadAverage.toFixed(1)})`,
    `  solo, in-process decoders        ${solo.inProcessTokS.toFixed(0)} tok/s`,
    `  solo, HTTP (one request a row)   ${solo.httpTokS.toFixed(0)} tok/s   HTTP / in-process ${solo.httpOverInProcess.toFixed(2)}`,
    `  tandem (word handoff), in-process ${tandem.inProcessTokS.toFixed(0)} tok/s`,
    ...tandem.bySpan.map(
      (run) =>
        `  tandem, HTTP span-and-cut, spans of ${run.spanTokens}: ${run.tokS.toFixed(0)} tok/s   HTTP / in-process ${run.overInProcess.toFixed(2)}   wasted ${(100 * run.wastedFraction).toFixed(1)}% of generated tokens, ${run.requestsPerRow.toFixed(1)} requests a row, ${run.resentPerKept.toFixed(1)} prefix tokens re-sent per kept token`,
    ),
    `  learner step (${w.rows} rows × ${w.tokens} tokens, ${trainer.parameters} parameters), in-process ${trainer.inProcessMs.toFixed(0)} ms`,
    `  learner step through the trainer API (serve-trainer on loopback) ${trainer.apiMs.toFixed(0)} ms   API / in-process (throughput) ${trainer.apiOverInProcess.toFixed(2)}   weights ${trainer.identical ? 'bit-identical' : 'DIFFER'} after every step`,
    `  SGLang dialect, ${w.rows} rows stopping at EOS: ${report.sglangStops.kept} tokens kept, ${report.sglangStops.generated} generated stopping at EOS, ${report.sglangStops.generatedIgnoringEos} under ignore_eos (stop ids ignored)`,
    '',
  ].join('\n');
}
