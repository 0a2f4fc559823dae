import { expect } from 'vitest';
import type { Dialect, SampleRequest, SampleResult, ScoreRequest } from '../../engine/remote/dialect.ts';
import { ServerPool } from '../../engine/remote/server-pool.ts';
import { reportsTemperedLogprobs } from '../../engine/remote/server-probes.ts';

export interface ContractTarget {
  readonly url: string;
  readonly dialect: Dialect;
  /** Token ids valid for the served model. */
  readonly prompt: readonly number[];
  /** How close a scored log-probability must come to the sampled one: float noise on CPU, bf16 kernels on a GPU. */
  readonly tolerance: number;
  /** The server's bearer token, if it takes one. */
  readonly token?: string;
}

/**
 * The contract ludus relies on, checked against one server with the very requests ludus sends: sampling with seeds,
 * scoring through the server's real log-probability layout (SGLang's None padding included), log-probabilities at the
 * sampling temperature, and stop ids as the family treats them. Run on `ludus serve-model` always and on a real vLLM
 * or SGLang server when LUDUS_VLLM_URL / LUDUS_SGLANG_URL name one (test/engine/remote/live-servers.test.ts).
 */
export async function checkContract(target: ContractTarget): Promise<void> {
  const { dialect, prompt } = target;
  const servers = new ServerPool([target.url], { maxConcurrency: 4, timeoutMs: 120_000, retries: 0, backoffMs: 0, ...(target.token ? { token: target.token } : {}) });
  await servers.checkHealth(dialect.healthPath);
  const sample = (request: SampleRequest): Promise<SampleResult> => {
    const { path, body } = dialect.sample(request);
    return servers.postTo(0, path, body, (json) => dialect.parseSample(json, request));
  };
  const score = (request: ScoreRequest): Promise<number[]> => {
    const { path, body } = dialect.score(request);
    return servers.postTo(0, path, body, (json) => dialect.parseScore(json, request));
  };
  const base: SampleRequest = { target: {}, prompt, maxTokens: 8, temperature: 1, topP: 1, seed: 1234, stopTokenIds: [], stopStrings: [], eosTokenIds: [] };

  // A seed replays; the sampled tokens' log-probabilities are those scoring the same sequence gives (at temperature 1).
  const first = await sample(base);
  expect(first.tokens).toHaveLength(8);
  expect((await sample(base)).tokens).toEqual(first.tokens);
  const scored = await score({ target: {}, sequence: [...prompt, ...first.tokens], from: prompt.length, temperature: 1 });
  expect(scored).toHaveLength(first.tokens.length);
  scored.forEach((logprob, t) => expect(Math.abs(logprob - first.logprobs[t])).toBeLessThan(target.tolerance));

  // Log-probabilities at the sampling temperature (vLLM: --logprobs-mode processed_logprobs).
  expect(await reportsTemperedLogprobs(servers, 0, dialect, {}, [prompt])).toBe(true);

  // A stop id ends the row where it is sampled; SGLang runs past it under ignore_eos (sent when EOS is not among the stop ids), and ludus cuts there.
  const stopId = first.tokens[2];
  const stopped = await sample({ ...base, stopTokenIds: [stopId] });
  const cut = first.tokens.indexOf(stopId) + 1;
  if (dialect.name === 'sglang') expect(stopped.tokens).toEqual(first.tokens);
  else expect({ tokens: stopped.tokens, finish: stopped.finish }).toEqual({ tokens: first.tokens.slice(0, cut), finish: 'stop' });
}
