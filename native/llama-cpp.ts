import { LudusError } from '../core/errors.ts';

/**
 * llama.cpp through node-llama-cpp (a devDependency, pinned; its prebuilt CPU binaries come with `npm ci`, no install
 * script): the only module that touches it. It checks GGUF exports (log-probabilities, tokenization) and is the
 * decoding peer of `ludus bench engine --peer llama.cpp`.
 */

type NodeLlamaCpp = typeof import('node-llama-cpp');
type Llama = Awaited<ReturnType<NodeLlamaCpp['getLlama']>>;
type LlamaModel = Awaited<ReturnType<Llama['loadModel']>>;

async function nodeLlamaCpp(): Promise<NodeLlamaCpp> {
  try {
    return await import('node-llama-cpp');
  } catch (error) {
    throw new LudusError('DEVICE_UNAVAILABLE', `llama.cpp is not available: node-llama-cpp does not load (${(error as Error).message.split('\n')[0]}); it is a devDependency that npm ci installs`);
  }
}

/** llama.cpp on the CPU, from node-llama-cpp's prebuilt binary only (never a build or a download), at most `threads` threads. */
async function cpuLlama(threads: number): Promise<Llama> {
  const { getLlama, LlamaLogLevel } = await nodeLlamaCpp();
  try {
    return await getLlama({ gpu: false, build: 'never', usePrebuiltBinaries: true, skipDownload: true, progressLogs: false, logLevel: LlamaLogLevel.error, maxThreads: threads });
  } catch (error) {
    throw new LudusError('DEVICE_UNAVAILABLE', `llama.cpp's prebuilt binary for this machine does not load: ${(error as Error).message.split('\n')[0]}`);
  }
}

export interface LlamaCppHandle {
  readonly model: LlamaModel;
  readonly llama: Llama;
  readonly threads: number;
  release(): Promise<void>;
}

/** Loads a GGUF file (mapped, not copied) for `threads` threads. */
export async function openGguf(path: string, threads: number): Promise<LlamaCppHandle> {
  const llama = await cpuLlama(threads);
  const model = await llama.loadModel({ modelPath: path, gpuLayers: 0, useMmap: true });
  return { model, llama, threads, release: () => model.dispose() };
}

/** How llama.cpp splits text into ids, special tokens in the text read as such (as Hugging Face tokenizers do). */
export const llamaTokenize = (handle: LlamaCppHandle, text: string): number[] => [...handle.model.tokenize(text, true)];

export const llamaDetokenize = (handle: LlamaCppHandle, ids: readonly number[]): string => handle.model.detokenize(ids as never, true);

/**
 * llama.cpp's teacher-forced log p(token_i | tokens_<i) of each sequence (index 0 null, as `ludus score` prints
 * them): one context sequence per row, each position's full next-token distribution (greedy sampler, so no sampling
 * transform touches the logits). `kvType` F32 keeps the cache in the model's precision.
 */
export async function llamaScore(handle: LlamaCppHandle, sequences: readonly (readonly number[])[], kvType: 'F16' | 'F32' = 'F32'): Promise<(number | null)[][]> {
  const longest = Math.max(...sequences.map((s) => s.length));
  const context = await handle.model.createContext({
    contextSize: longest + 1,
    sequences: 1,
    threads: { ideal: handle.threads, min: handle.threads },
    flashAttention: false,
    experimentalKvCacheKeyType: kvType,
    experimentalKvCacheValueType: kvType,
  });
  try {
    const sequence = context.getSequence();
    const result: (number | null)[][] = [];
    for (const tokens of sequences) {
      await sequence.clearHistory();
      const outputs = await sequence.controlledEvaluate(tokens.map((t) => [t, { generateNext: { probabilities: true } }] as [number, { generateNext: { probabilities: true } }]) as never);
      result.push(tokens.map((_, i) => (i === 0 ? null : Math.log(outputs[i - 1]?.next.probabilities?.get(tokens[i] as never) ?? 0))));
    }
    return result;
  } finally {
    await context.dispose();
  }
}

export interface LlamaDecodeOptions {
  prompts: readonly (readonly number[])[];
  newTokens: number;
  repeats: number;
  /** The KV cache's type: F16 is llama.cpp's default. */
  kvType: 'F16' | 'F32';
  /** llama.cpp's flash attention: 'auto' (its default) enables it where the backend has it. */
  flashAttention: 'auto' | boolean;
  /** Threads for this context, at most the handle's (its own when absent). */
  threads?: number;
}

export interface LlamaDecodeResult {
  /** New tokens over the whole rollout (prefill included), median of the repeats. */
  tok_s: number;
  /** New tokens after the first over the decode steps alone. */
  decode_tok_s: number;
  settings: Record<string, unknown>;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/**
 * Batched decoding in llama.cpp: every prompt is a sequence of one context, and node-llama-cpp gathers the
 * sequences' pending tokens into one llama_decode per step (several sequences in one batch). Greedy sampling, its
 * cheapest sampler: through node-llama-cpp, temperature 1 over the whole vocabulary sorts the vocabulary for every
 * row and step (top-k with k = the vocabulary), which would charge llama.cpp for its API, not its decoding.
 * End-of-generation tokens are kept and decoding goes on, so every row writes `newTokens`.
 */
export async function llamaDecode(handle: LlamaCppHandle, options: LlamaDecodeOptions): Promise<LlamaDecodeResult> {
  const batch = options.prompts.length;
  const promptTokens = Math.max(...options.prompts.map((p) => p.length));
  const context = await handle.model.createContext({
    contextSize: promptTokens + options.newTokens + 1,
    sequences: batch,
    batchSize: Math.max(batch * promptTokens, batch),
    threads: { ideal: Math.min(options.threads ?? handle.threads, handle.threads), min: Math.min(options.threads ?? handle.threads, handle.threads) },
    flashAttention: options.flashAttention,
    experimentalKvCacheKeyType: options.kvType,
    experimentalKvCacheValueType: options.kvType,
  });
  try {
    const sequences = options.prompts.map(() => context.getSequence());
    const rollout = async (newTokens: number) => {
      await Promise.all(sequences.map((s) => s.clearHistory()));
      const firsts: number[] = [];
      const start = performance.now();
      await Promise.all(
        sequences.map(async (sequence, row) => {
          let written = 0;
          for await (const _token of sequence.evaluate([...options.prompts[row]] as never, { temperature: 0, yieldEogToken: true })) {
            if (++written === 1) firsts.push(performance.now());
            if (written >= newTokens) break;
          }
        }),
      );
      const end = performance.now();
      return { whole: (batch * newTokens) / ((end - start) / 1000), steps: (batch * (newTokens - 1)) / ((end - Math.max(...firsts)) / 1000) };
    };
    await rollout(Math.min(8, options.newTokens));
    const runs = [];
    for (let i = 0; i < options.repeats; i++) runs.push(await rollout(options.newTokens));
    return {
      tok_s: Number(median(runs.map((r) => r.whole)).toFixed(1)),
      decode_tok_s: Number(median(runs.map((r) => r.steps)).toFixed(1)),
      settings: {
        llama_cpp: (handle.llama as unknown as { llamaCppRelease?: { release?: string } }).llamaCppRelease?.release,
        binary: handle.llama.buildType,
        threads: context.currentThreads,
        sequences: batch,
        batch_size: context.batchSize,
        context_per_sequence: context.contextSize,
        flash_attention: context.flashAttention,
        kv_cache: options.kvType,
        sampling: 'greedy',
      },
    };
  } finally {
    await context.dispose();
  }
}
