import { benchDecode, presetSummary, round, type DecodeBenchResult, type EngineBenchOptions } from './engine-bench.ts';
import { benchResponsiveness, type ResponsivenessResult } from './responsiveness.ts';
import { benchTrain } from './train-bench.ts';
import { benchAdapters, type AdapterBenchResult } from './adapter-bench.ts';
import { benchTorch, TORCH_SPEED_PEER, type TorchBaseline } from './torch-baseline.ts';
import { llamaCppPeer, type LlamaCppPeerReport } from './llama-cpp-report.ts';

export interface EngineReportOptions extends EngineBenchOptions {
  trainBatch: number;
  trainLen: number;
  trainSteps: number;
  long?: boolean;
  torch: 'auto' | 'on' | 'off';
  /** Also the reference model's PyTorch rates, the peer of the figures before 2026-12-07. */
  torchReference?: boolean;
  /** Decoding peers measured on the same weights: 'llama.cpp'. */
  peers?: readonly string[];
}

export type EngineBenchReport = DecodeBenchResult & ResponsivenessResult & {
  train_tok_s: number;
  train_step_ms: number;
  /** LoRA in the engine (adapter-bench.ts): two adapters decoded stacked on one base, and LoRA r=16 training against full fine-tuning. */
  adapters: AdapterBenchResult;
  model_config: Record<string, unknown>;
  parameters: number;
  batch: number;
  new_tokens: number;
  prompt_tokens: number;
  train_batch: number;
  train_len: number;
  threads: number;
  long_rollout?: { tokens: number; batch: number; tok_s: number; cache_mb: number; rss_mb: number };
  torch?: TorchBaseline & { decode_ratio: number; train_ratio: number };
  torch_skipped?: string;
  /** Which PyTorch peer `torch` measured (`ludus bench compare` does not set two different peers' ratios against each other). */
  torch_peer?: string;
  llama_cpp?: LlamaCppPeerReport;
  /** Every ratio against a peer, side by side (ours over theirs; higher is better for ludus). */
  ratios: Record<string, number>;
};

export async function benchEngine(options: EngineReportOptions): Promise<EngineBenchReport> {
  const progress = options.onProgress ?? (() => {});
  const decode = await benchDecode({ ...options, onProgress: progress });
  progress(`training, batch ${options.trainBatch} × ${options.trainLen}`);
  const trainOptions = { preset: options.preset, rows: options.trainBatch, cols: options.trainLen, threads: options.threads, steps: options.trainSteps, seed: options.seed };
  const train = await benchTrain(trainOptions);
  const adapters = await benchAdapters({ ...options, onProgress: progress });
  progress(`this thread's timers during a generation in the worker and in-process, batch ${options.batch}`);
  const responsiveness = await benchResponsiveness(options);
  const report: EngineBenchReport = {
    ...decode,
    ...train,
    adapters,
    ...responsiveness,
    ...presetSummary(options.preset),
    batch: options.batch,
    new_tokens: options.newTokens,
    prompt_tokens: options.promptTokens,
    train_batch: options.trainBatch,
    train_len: options.trainLen,
    threads: options.threads,
    ratios: { tandem_over_solo: decode.tandem_over_solo },
  };
  if (options.long) {
    progress(`one 2048-token co-decoded rollout at batch ${options.batch}`);
    const { benchLongRollout } = await import('./long-rollout.ts');
    report.long_rollout = await benchLongRollout({ preset: options.preset, batch: options.batch, tokens: 2048, threads: options.threads, seed: options.seed });
  }
  if (options.torch !== 'off') {
    progress('PyTorch eager written for speed (tools/python/torch_speed_peer.py) on the same model');
    const torch = await benchTorch({ ...options, required: options.torch === 'on', reference: options.torchReference });
    if ('skipped' in torch) report.torch_skipped = torch.skipped;
    else {
      report.torch = { ...torch, decode_ratio: round(decode.solo_decode_tok_s / torch.decode_tok_s, 2), train_ratio: round(train.train_tok_s / torch.train_tok_s, 2) };
      report.torch_peer = TORCH_SPEED_PEER;
      report.ratios.decode_over_torch = report.torch.decode_ratio;
      report.ratios.train_over_torch = report.torch.train_ratio;
      if (torch.reference) {
        report.ratios.decode_over_torch_reference = round(decode.solo_decode_tok_s / torch.reference.decode_tok_s, 2);
        report.ratios.train_over_torch_reference = round(train.train_tok_s / torch.reference.train_tok_s, 2);
      }
    }
  }
  if (options.peers?.includes('llama.cpp')) {
    progress(`llama.cpp (node-llama-cpp) on the same weights as GGUF F32, batched decoding at B = ${options.batch} and 1`);
    report.llama_cpp = await llamaCppPeer({ ...options, ours: { [options.batch]: decode.solo_decode_tok_s, 1: decode.solo_decode_tok_s_b1 } });
    for (const [key, value] of Object.entries(report.llama_cpp.ratios)) report.ratios[`decode_over_llama_cpp_${key}`] = value;
  }
  return report;
}

export function formatEngineBench(r: EngineBenchReport): string {
  const a = r.adapters;
  const rows: Array<[string, string]> = [
    ['model', `${r.model_config.model_type} preset, ${(r.parameters / 1e6).toFixed(2)}M parameters, ${r.threads} threads`],
    [`solo decode, B=${r.batch}`, `${r.solo_decode_tok_s} tok/s`],
    [`tandem decode, B=${r.batch}`, `${r.tandem_decode_tok_s} tok/s  (tandem/solo ${r.tandem_over_solo}, senior share ${r.senior_share})`],
    ['solo decode, B=1', `${r.solo_decode_tok_s_b1} tok/s`],
    ['tandem decode, B=1', `${r.tandem_decode_tok_s_b1} tok/s  (tandem/solo ${r.tandem_over_solo_b1})`],
    ['naive tandem prototype', `${r.naive_tandem_tok_s} tok/s  (batched tandem is ${r.tandem_over_naive}x faster)`],
    [`train, B=${r.train_batch} T=${r.train_len}`, `${r.train_tok_s} tok/s  (${r.train_step_ms} ms/step, fwd+bwd+AdamW)`],
    [`two adapters, one base, B=${r.batch}`, `${a.two_adapters_decode_tok_s} tok/s  (${a.two_adapters_over_base}x the base's ${a.base_decode_tok_s}; ${a.stacked_over_apart}x a decoder per adapter)`],
    [
      `tandem, adapter senior over its base junior, B=${r.batch}`,
      `${a.tandem_adapter_stacked_tok_s} tok/s co-decoded in one stack vs ${a.tandem_adapter_members_tok_s} with a member per policy (${a.tandem_adapter_stacked_over_members}x; B=1: ${a.tandem_adapter_stacked_tok_s_b1} vs ${a.tandem_adapter_members_tok_s_b1}, ${a.tandem_adapter_stacked_over_members_b1}x)`,
    ],
    ['adapter update, stacked', `${a.adapter_copy_ms} ms to re-copy one adapter (a stacked decode step: ${a.stacked_step_ms} ms)`],
    [`LoRA r=16 vs full FT, B=${r.train_batch} T=${r.train_len}`, `${a.lora_train_step_ms} vs ${a.full_train_step_ms} ms/step interleaved (LoRA ${a.lora_over_full}x faster; AdamW ${a.lora_adamw_ms} vs ${a.full_adamw_ms} ms, forward ${a.forward_ms} ms)`],
    ['decode RSS growth', `${r.decode_rss_growth_mb} MB over repeated rollouts (caches ${r.cache_mb} MB)`],
    ['main-thread stall, decoding', `longest 5 ms timer gap ${r.worker_max_gap_ms} ms through the worker, ${r.in_process_max_gap_ms} ms in-process`],
  ];
  if (r.long_rollout) rows.push(['2048-token tandem rollout', `${r.long_rollout.tok_s} tok/s at B=${r.long_rollout.batch}, caches ${r.long_rollout.cache_mb} MB, RSS ${r.long_rollout.rss_mb} MB`]);
  if (r.torch) {
    rows.push([`PyTorch decode, B=${r.batch}`, `${r.torch.decode_tok_s} tok/s (ours ${r.torch.decode_ratio}x), torch ${r.torch.version} written for speed, ${r.torch.blas}`]);
    rows.push(['PyTorch train', `${r.torch.train_tok_s} tok/s (ours ${r.torch.train_ratio}x)`]);
    if (r.torch.reference) rows.push(['PyTorch reference model', `decode ${r.torch.reference.decode_tok_s}, train ${r.torch.reference.train_tok_s} tok/s (the peer before 2026-12-07)`]);
  } else if (r.torch_skipped) rows.push(['PyTorch', `skipped: ${r.torch_skipped}`]);
  if (r.llama_cpp) {
    for (const [key, row] of Object.entries(r.llama_cpp.decode)) rows.push([`llama.cpp decode, ${key.replace('b', 'B=')}`, `${row.tok_s} tok/s (ours ${r.llama_cpp.ratios[key]}x)`]);
    for (const [key, settings] of Object.entries(r.llama_cpp.settings)) rows.push([`llama.cpp fastest settings, ${key.replace('b', 'B=')}`, JSON.stringify(settings)]);
  }
  rows.push(['ratios (ours / peer)', Object.entries(r.ratios).map(([k, v]) => `${k} ${v}`).join(', ')]);
  const width = Math.max(...rows.map(([k]) => k.length));
  return `${rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}\n`;
}
