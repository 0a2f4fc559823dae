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
 * The memory one run of rows may take when the number of rows is chosen automatically (ours): large enough that a
 * batch of short rows runs whole (fewest runs, fastest), small enough that long rows run a few at a time (64 rows of
 * 600-1,100 tokens on the last-letter base held 6.9 GB in runs of 16, 1.8 GB in runs of 4, at about the same speed).
 */
export const RUN_BUDGET_BYTES = 2 ** 30;

/** The most rows (1 to `rows`) whose forward+backward run over `cols` tokens the estimate keeps within the run budget. */
export function rowsWithinBudget(c: ModelConfig, rows: number, cols: number): number {
  return Math.max(1, Math.min(rows, Math.floor(RUN_BUDGET_BYTES / trainRunBytes(c, 1, cols))));
}
