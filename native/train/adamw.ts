import { z } from 'zod';
import { LudusError, entryOf, fail } from '../../core/errors.ts';
import { parseConfig } from '../../core/parse-config.ts';

export const AdamWConfigSchema = z
  .object({
    lr: z.number().positive().default(1e-6),
    betas: z.tuple([z.number().min(0).lt(1), z.number().min(0).lt(1)]).default([0.9, 0.999]),
    eps: z.number().positive().default(1e-8),
    weightDecay: z.number().min(0).default(0.01),
    /** Global L2 norm the gradients are clipped to; null disables clipping. */
    maxGradNorm: z.number().positive().nullable().default(1.0),
    /** Tensors whose name ends with one of these get no weight decay. */
    noDecaySuffixes: z.array(z.string()).default(['norm.weight', '.bias']),
  })
  .strict();

export type AdamWConfig = z.output<typeof AdamWConfigSchema>;
export type AdamWConfigInput = z.input<typeof AdamWConfigSchema>;

export interface Parameter {
  dims: number[];
  data: Float32Array;
}

/** Everything needed to resume: plain typed arrays, ready for a checkpoint file. */
export interface AdamWState {
  step: number;
  m: Record<string, Float32Array>;
  v: Record<string, Float32Array>;
}

export interface AdamWStepResult {
  step: number;
  /** Global L2 norm of the gradients before clipping. */
  gradNorm: number;
  clipped: boolean;
}

export interface AdamWStepOptions {
  /** The loss that produced the gradients; a non-finite one stops the step like a non-finite gradient. */
  loss?: number;
  /** Overrides the configured learning rate for this step (schedules). */
  lr?: number;
  /** Σ g² of some gradients, by tensor name, computed elsewhere (SquareSums); the others are summed here. */
  squares?: ReadonlyMap<string, number>;
}

/**
 * AdamW with decoupled weight decay, as torch.optim.AdamW: p ← p·(1 − lr·wd) − lr·m̂ / (√v̂ + eps).
 * Gradients are clipped to a global norm first. Any non-finite loss or gradient raises NON_FINITE
 * naming the tensor and the step, and leaves parameters and moments untouched.
 */
export class AdamW {
  readonly config: AdamWConfig;
  private stepCount = 0;
  private readonly m = new Map<string, Float32Array>();
  private readonly v = new Map<string, Float32Array>();

  constructor(
    private readonly params: ReadonlyMap<string, Parameter>,
    config: AdamWConfigInput = {},
  ) {
    this.config = parseConfig(AdamWConfigSchema, config, 'AdamW config');
    for (const [name, p] of params) {
      this.m.set(name, new Float32Array(p.data.length));
      this.v.set(name, new Float32Array(p.data.length));
    }
  }

  get step(): number {
    return this.stepCount;
  }

  decays(name: string): boolean {
    return !this.config.noDecaySuffixes.some((suffix) => name.endsWith(suffix));
  }

  /** Applies one update from `grads` (same names and sizes as the parameters). */
  apply(grads: ReadonlyMap<string, Float32Array>, options: AdamWStepOptions = {}): AdamWStepResult {
    const next = this.stepCount + 1;
    if (options.loss !== undefined && !Number.isFinite(options.loss)) {
      fail('NON_FINITE', `loss is ${options.loss} at optimizer step ${next}; update skipped`, { tensor: 'loss', step: next });
    }
    const gradNorm = this.globalNorm(grads, next, options.squares);
    const { maxGradNorm, betas, eps, weightDecay } = this.config;
    const clipped = maxGradNorm !== null && gradNorm > maxGradNorm;
    const gradScale = clipped ? maxGradNorm / (gradNorm + 1e-6) : 1;
    const lr = options.lr ?? this.config.lr;
    const [b1, b2] = betas;
    const stepSize = lr / (1 - b1 ** next);
    const sqrtBias2 = Math.sqrt(1 - b2 ** next);
    for (const [name, p] of this.params) {
      updateTensor(p.data, entryOf(grads, name, 'the gradient'), entryOf(this.m, name, 'the first moment'), entryOf(this.v, name, 'the second moment'), {
        gradScale,
        b1,
        b2,
        eps,
        stepSize,
        sqrtBias2,
        keep: this.decays(name) ? 1 - lr * weightDecay : 1,
      });
    }
    this.stepCount = next;
    return { step: next, gradNorm, clipped };
  }

  private globalNorm(grads: ReadonlyMap<string, Float32Array>, step: number, given?: ReadonlyMap<string, number>): number {
    let total = 0;
    for (const [name, p] of this.params) {
      const g = grads.get(name);
      if (!g || g.length !== p.data.length) {
        fail('INPUT_INVALID', `gradient for "${name}" is ${g ? `of length ${g.length}, expected ${p.data.length}` : 'missing'}`, { tensor: name });
      }
      const squares = given?.get(name) ?? sumOfSquares(g);
      if (!Number.isFinite(squares)) {
        const bad = g.findIndex((x) => !Number.isFinite(x));
        throw new LudusError('NON_FINITE', `gradient of "${name}" holds ${g[bad]} at index ${bad} at optimizer step ${step}; update skipped`, {
          tensor: name,
          step,
          index: bad,
        });
      }
      total += squares;
    }
    return Math.sqrt(total);
  }

  state(): AdamWState {
    const copy = (map: Map<string, Float32Array>): Record<string, Float32Array> =>
      Object.fromEntries([...map].map(([name, a]) => [name, new Float32Array(a)]));
    return { step: this.stepCount, m: copy(this.m), v: copy(this.v) };
  }

  loadState(state: AdamWState): void {
    for (const [name, p] of this.params) {
      const m = state.m[name];
      const v = state.v[name];
      if (!m || !v || m.length !== p.data.length || v.length !== p.data.length) {
        fail('INPUT_INVALID', `optimizer state for "${name}" is missing or has the wrong size`, { tensor: name });
      }
      entryOf(this.m, name, 'the first moment').set(m);
      entryOf(this.v, name, 'the second moment').set(v);
    }
    this.stepCount = state.step;
  }
}

function sumOfSquares(g: Float32Array): number {
  let s0 = 0;
  let s1 = 0;
  const n = g.length;
  let i = 0;
  for (; i + 1 < n; i += 2) {
    s0 += g[i] * g[i];
    s1 += g[i + 1] * g[i + 1];
  }
  if (i < n) s0 += g[i] * g[i];
  return s0 + s1;
}

interface UpdateConstants {
  gradScale: number;
  b1: number;
  b2: number;
  eps: number;
  stepSize: number;
  sqrtBias2: number;
  /** 1 − lr·weight_decay, or 1 where the tensor is not decayed. */
  keep: number;
}

/** One fused pass: clip scale, both moments, bias corrections and decay, constants folded out of the loop. */
function updateTensor(p: Float32Array, g: Float32Array, m: Float32Array, v: Float32Array, c: UpdateConstants): void {
  const { b1, b2, eps, stepSize, keep } = c;
  const mGain = (1 - b1) * c.gradScale;
  const vGain = (1 - b2) * c.gradScale * c.gradScale;
  const invSqrtBias2 = 1 / c.sqrtBias2;
  const n = p.length;
  for (let i = 0; i < n; i++) {
    const gi = g[i];
    const mi = b1 * m[i] + mGain * gi;
    const vi = b2 * v[i] + vGain * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] = p[i] * keep - (stepSize * mi) / (Math.sqrt(vi) * invSqrtBias2 + eps);
  }
}
