import { freemem } from 'node:os';
import { fail } from '../../core/errors.ts';
import type { ModelConfig } from './config.ts';

/**
 * What a model costs in host memory, computed from its config alone, so a model, a cache or a training state that
 * cannot fit is refused with MEMORY_INSUFFICIENT before anything is allocated (not killed by the kernel later).
 * Everything is held as float32: onnxruntime's CPU kernels have no float16/bfloat16 GEMM on x86, and casting
 * 16-bit weights in the graph was slower than float32 at every batch measured (docs/performance.md, "Real-size models").
 */
export const FLOAT_BYTES = 4;

/** Parameters the config implies, in closed form (no per-tensor walk: a config may claim a million layers). */
export function parameterCount(c: ModelConfig): number {
  const D = c.hiddenSize;
  const I = c.intermediateSize;
  const qDim = c.numHeads * c.headDim;
  const kvDim = c.numKvHeads * c.headDim;
  const attention = qDim * D + 2 * kvDim * D + D * qDim + (c.qkvBias ? qDim + 2 * kvDim : 0) + (c.oBias ? D : 0) + (c.qkNorm ? 2 * c.headDim : 0);
  const mlp = 3 * I * D + (c.mlpBias ? 2 * I + D : 0);
  const layer = 2 * D + attention + mlp;
  return c.vocabSize * D * (c.tieWordEmbeddings ? 1 : 2) + c.numLayers * layer + D;
}

export const weightBytes = (c: ModelConfig): number => parameterCount(c) * FLOAT_BYTES;

/** Keys and values of one cached position across all layers. */
export const kvBytesPerPosition = (c: ModelConfig): number => 2 * c.numLayers * c.numKvHeads * c.headDim * FLOAT_BYTES;

/**
 * Bytes a new allocation may take: the memory the OS reports available (Linux MemAvailable: free plus reclaimable
 * cache), within the cgroup limit when one is set. `LUDUS_MEMORY_BYTES` overrides it (tests, or a budget smaller
 * than the machine's).
 */
export function availableBytes(): number {
  const override = Number(process.env.LUDUS_MEMORY_BYTES);
  if (override > 0) return override;
  const constrained = typeof process.constrainedMemory === 'function' ? process.constrainedMemory() : 0;
  const limit = constrained && constrained > 0 && Number.isFinite(constrained) ? constrained - process.memoryUsage().rss : Infinity;
  return Math.min(freemem(), limit);
}

export const formatBytes = (bytes: number): string =>
  bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GiB` : `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** Refuses an allocation of `bytes` that the available memory cannot hold; `what` names it and why it is that big. */
export function ensureFits(what: string, bytes: number, details: Record<string, unknown> = {}): void {
  const available = availableBytes();
  if (!(bytes <= available)) {
    fail('MEMORY_INSUFFICIENT', `${what} needs ${formatBytes(bytes)} but ${formatBytes(available)} of memory are available`, { ...details, bytes, available });
  }
}

/**
 * What one forward+backward run over `rows` × `cols` tokens holds at its peak, from the config alone (ours: an upper
 * estimate, checked against measured peaks in the learner's tests): per token, the logits and their log-softmax,
 * softmax and gradient, and each layer's saved activations; per row, each layer's attention scores and probabilities
 * with their gradients, which grow with the square of the length.
 */
export function trainRunBytes(c: ModelConfig, rows: number, cols: number): number {
  const perToken = 4 * c.vocabSize + c.numLayers * (12 * c.hiddenSize + 6 * c.intermediateSize + 4 * c.numHeads * c.headDim);
  const attention = 4 * c.numLayers * c.numHeads * cols * cols;
  return rows * (cols * perToken + attention) * FLOAT_BYTES;
}

/**
 * The least memory one run of rows may take when the number of rows is chosen automatically (ours): a batch whose
 * rows fit in it runs whole wherever it runs, whatever memory the machine has. Long rows run a few at a time (64 rows
 * of 600-1,100 tokens on the last-letter base held 6.9 GB in runs of 16, 1.8 GB in runs of 4, at about the same speed).
 */
export const RUN_BUDGET_BYTES = 2 ** 30;

/**
 * The most (ours): past it a run's arena holds memory that other sessions of the process (decoders, scorers) could
 * use, for no speed measured (see RUN_BUDGET_BYTES).
 */
export const RUN_BUDGET_CAP_BYTES = 8 * 2 ** 30;

/**
 * The run budget chosen from the memory available now (ours): half of what is left once `reservedBytes` (the
 * training state about to be allocated) is taken, shared by `learners` learners whose arenas each keep their peak,
 * within RUN_BUDGET_BYTES and RUN_BUDGET_CAP_BYTES. Fewer, larger runs are faster: a full fine-tuning step of
 * Qwen3-0.6B shape over 4 × 128 tokens took 25-27.6 s in runs of one row, 19.5 s in runs of two and 13.5 s in one run
 * (docs/performance.md). It depends on the machine and the moment, so a run records the value and a resumed run
 * reuses it (the runs' count sets the order in which gradients are summed).
 */
export function chooseRunBudget(reservedBytes: number, learners = 1): number {
  const spare = (availableBytes() - reservedBytes) / (2 * Math.max(1, learners));
  return Math.floor(Math.max(RUN_BUDGET_BYTES, Math.min(RUN_BUDGET_CAP_BYTES, spare)));
}

/** The most rows (1 to `rows`) whose forward+backward run over `cols` tokens the estimate keeps within `budget` bytes. */
export function rowsWithinBudget(c: ModelConfig, rows: number, cols: number, budget: number = RUN_BUDGET_BYTES): number {
  return Math.max(1, Math.min(rows, Math.floor(budget / trainRunBytes(c, 1, cols))));
}
