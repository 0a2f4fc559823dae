import type { z } from 'zod';
import { fail } from '../../core/errors.ts';

/** Which weights a request samples from: the server's base model (by its served name, when it has one to give) or a loaded adapter. */
export interface ServedTarget {
  readonly model?: string;
  readonly adapter?: string;
}

/** One sampling request: a row's whole token prefix, its budget, its own seed. */
export interface SampleRequest {
  readonly target: ServedTarget;
  readonly prompt: readonly number[];
  readonly maxTokens: number;
  readonly temperature: number;
  readonly topP: number;
  readonly seed: number;
  readonly stopTokenIds: readonly number[];
  readonly stopStrings: readonly string[];
  /** The served model's end-of-sequence ids as the policy's config names them (a server stops at these unless told not to). */
  readonly eosTokenIds: readonly number[];
}

export interface SampleResult {
  readonly tokens: number[];
  /** The sampled tokens' log-probabilities at the request's temperature (the server must report processed logprobs). */
  readonly logprobs: number[];
  /** 'stop': an EOS or stop token (`stopReason` its id, or null for EOS); 'stop-sequence': a stop string; 'length'. */
  readonly finish: 'stop' | 'stop-sequence' | 'length';
}

/** Teacher-forced scoring of a sequence under a target: the log-probability of every token from `from` on. */
export interface ScoreRequest {
  readonly target: ServedTarget;
  readonly sequence: readonly number[];
  readonly from: number;
  readonly temperature: number;
}

/** What a rollout call asks of the servers, checked before any request is sent. */
export interface CallShape {
  readonly temperature: number;
  readonly topP: number;
  /** Whether partners' log-probabilities are scored (prompt log-probabilities of a co-written row). */
  readonly scoring: boolean;
}

export interface HttpCall {
  readonly path: string;
  readonly body: unknown;
  /** Checks the answer where a 2xx can still report a failure. */
  readonly check?: (json: unknown) => void;
}

/**
 * How one server family spells the requests RL needs, and how its answers are read. Bodies and answers follow the
 * family's documented protocol (engine/remote/vllm-wire.ts, sglang-wire.ts); answers are checked against it.
 */
export interface Dialect {
  readonly name: 'vllm' | 'sglang';
  readonly healthPath: string;
  /** Refuses (REMOTE_UNSUPPORTED, saying why) a call whose log-probabilities this family's servers would get wrong. */
  checkCall(call: CallShape): void;
  sample(request: SampleRequest): HttpCall;
  parseSample(json: unknown, request: SampleRequest): SampleResult;
  score(request: ScoreRequest): HttpCall;
  parseScore(json: unknown, request: ScoreRequest): number[];
  loadAdapter(name: string, path: string): HttpCall;
  unloadAdapter(name: string): HttpCall;
  /**
   * Replaces the served base model's weights from a directory, dropping the prefix cache with them; undefined where
   * the family has no such endpoint. (A pushed adapter needs no flush: it has a new name, and caches are kept per adapter.)
   */
  updateWeights?(path: string, version: number): HttpCall;
}

/**
 * Both families score a prompt from the raw logits, whatever the request's temperature (vLLM's `prompt_logprobs`,
 * SGLang's `input_token_logprobs`): a partner's log-probability at T != 1 cannot be had from either without the whole
 * distribution, so such a call is refused rather than recorded wrong.
 */
export function refuseTemperedScoring(family: string, call: CallShape): void {
  if (call.scoring && call.temperature !== 1) {
    fail('REMOTE_UNSUPPORTED', `${family} scores prompt tokens from the raw logits whatever the temperature, so partners' log-probabilities at temperature ${call.temperature} would be those of temperature 1; run this game at temperature 1 on ${family}, or in-process`, { temperature: call.temperature });
  }
}

/** The token a server stopped at must be one the request named: a server that stops at an id of its own (an EOS the policy's config does not list, a default stop id) has ended the row where ludus would not. */
export function checkStopToken(family: string, token: number | undefined, request: SampleRequest): void {
  if (token !== undefined && !request.stopTokenIds.includes(token)) {
    fail('REMOTE_RESPONSE_INVALID', `${family}: the server stopped at token ${token}, which is not among the request's stop ids [${request.stopTokenIds.join(', ')}]: its end-of-sequence or default stop ids differ from the policy's config`, { token });
  }
}

/** An answer checked against its documented schema; REMOTE_RESPONSE_INVALID naming the first mismatch. */
export function parseAnswer<S extends z.ZodType>(schema: S, json: unknown, what: string): z.output<S> {
  const result = schema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    fail('REMOTE_RESPONSE_INVALID', `${what}: ${issue.path.join('.') || '(body)'}: ${issue.message}`, { path: issue.path.join('.') });
  }
  return result.data as z.output<S>;
}
