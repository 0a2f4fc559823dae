import { LudusError, fail } from '../../core/errors.ts';
import type { Dialect, SampleRequest, ServedTarget } from './dialect.ts';
import type { ServerPool } from './server-pool.ts';

/** The probe's temperature: far enough from 1 that tempered and raw log-probabilities of a token differ plainly. */
const PROBE_TEMPERATURE = 2;
/** Log-probabilities closer than this are the same number (float noise across batch shapes is ~1e-5). */
const SAME = 1e-3;

/**
 * Whether one server reports sampled tokens' log-probabilities at the request's temperature (vLLM started with
 * `--logprobs-mode processed_logprobs`; SGLang without SGLANG_RETURN_ORIGINAL_LOGPROB) or from the raw logits (vLLM's
 * default `raw_logprobs`). A token is sampled at temperature 2 and then scored, which both families do from the raw
 * logits: equal log-probabilities mean raw ones. Each prompt is tried in turn until one tells (a token of probability ~1
 * has log-probability ~0 either way); none telling counts as raw, so a doubt refuses rather than trains on wrong numbers.
 */
export async function reportsTemperedLogprobs(servers: ServerPool, server: number, dialect: Dialect, target: ServedTarget, prompts: readonly (readonly number[])[]): Promise<boolean> {
  for (const prompt of prompts.filter((p) => p.length > 0)) {
    const request: SampleRequest = { target, prompt, maxTokens: 1, temperature: PROBE_TEMPERATURE, topP: 1, seed: 0, stopTokenIds: [], stopStrings: [], eosTokenIds: [] };
    const asked = dialect.sample(request);
    const sampled = await servers.postTo(server, asked.path, asked.body, (json) => dialect.parseSample(json, request));
    const scoring = { target, sequence: [...prompt, sampled.tokens[0]], from: prompt.length, temperature: 1 };
    const scored = dialect.score(scoring);
    const [raw] = await servers.postTo(server, scored.path, scored.body, (json) => dialect.parseScore(json, scoring));
    if (Math.abs(raw) < SAME && Math.abs(sampled.logprobs[0]) < SAME) continue;
    return Math.abs(raw - sampled.logprobs[0]) > SAME;
  }
  return false;
}

/** What each family needs at launch for ludus's adapters, named where a server refuses one. */
export const ADAPTER_LAUNCH_FLAGS: Readonly<Record<Dialect['name'], string>> = {
  vllm: 'start vLLM with --enable-lora --max-lora-rank <at least the adapter\'s r> --max-loras <at least twice the adapters served at once: a push loads the new version before unloading the old> and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True',
  sglang: 'start SGLang with --enable-lora --max-lora-rank <at least the adapter\'s r> --lora-target-modules all --max-loras-per-batch <at least the adapters served at once>',
};

/** Runs an adapter load; a server's refusal (its rank or slot limits, LoRA not enabled) becomes REMOTE_MISCONFIGURED naming the launch flags. */
export async function loadingAdapter<T>(dialect: Dialect, adapter: string, rank: number | undefined, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!LudusError.is(error, 'REMOTE_REJECTED')) throw error;
    return fail('REMOTE_MISCONFIGURED', `${dialect.name} refused to load adapter "${adapter}"${rank === undefined ? '' : ` (LoRA rank ${rank})`}: ${error.message}; ${ADAPTER_LAUNCH_FLAGS[dialect.name]}`, { adapter, rank });
  }
}
