import { fail } from '../../core/errors.ts';
import type { AttrValue, Dim, Graph, OpOptions, Value } from '../onnx/graph.ts';

/** The float types a tape differentiates in: float32 for training, float64 for finite-difference checks. */
export type FloatDType = 'float32' | 'float64';

/**
 * A gradient that is zero except at some rows: `updates` [M, ...] added at row `indices[m]` of a tensor shaped like
 * `like` (the backward of a row gather). The tape adds it into the other contributions with one in-order
 * ScatterElements instead of materializing a zero tensor first, so a tied [V, D] embedding's gradient costs one
 * [V, D] buffer rather than one per use.
 */
export interface RowScatter {
  scatterRows: { indices: Value; updates: Value; like: Value };
}

/**
 * Emits the gradient ops of one forward step. Receives the gradient of the step's output (it runs only when one
 * reached it) and returns one gradient per input, or null where the input needs none.
 */
export type BackwardRule = (outputGrad: Value) => Array<Value | RowScatter | null>;

interface Step {
  inputs: Value[];
  output: Value;
  rule: BackwardRule;
}

/**
 * Reverse-mode autodiff over a Graph. Forward helpers append their ops to the graph and record a backward
 * rule; `backward` replays the rules in reverse, summing with Add where a value feeds several consumers.
 * Only values derived from parameters carry gradient, so constants and token ids cost nothing.
 */
export class Tape {
  private readonly steps: Step[] = [];
  private readonly differentiable = new Set<string>();
  private readonly grads = new Map<string, Array<Value | RowScatter>>();
  private readonly summed = new Map<string, Value>();
  private backwardDone = false;

  constructor(
    readonly graph: Graph,
    readonly dtype: FloatDType,
  ) {}

  /** A graph input that gradients flow to. */
  parameter(name: string, dims: Dim[]): Value {
    const value = this.graph.input(name, this.dtype, dims);
    this.differentiable.add(value.name);
    return value;
  }

  needsGrad(value: Value): boolean {
    return this.differentiable.has(value.name);
  }

  op1(opType: string, inputs: Array<Value | null>, attrs: Record<string, AttrValue> = {}, options: OpOptions = {}): Value {
    return this.graph.op1(opType, inputs, attrs, options);
  }

  op(opType: string, inputs: Array<Value | null>, attrs: Record<string, AttrValue> = {}, options: OpOptions = {}): Value[] {
    return this.graph.op(opType, inputs, attrs, options);
  }

  scalar(value: number): Value {
    return this.graph.scalar(value, this.dtype);
  }

  /** Records a forward step; its output carries gradient when any input does. */
  record(inputs: Value[], output: Value, rule: BackwardRule): void {
    if (this.backwardDone) fail('GRAPH_INVALID', 'tape: forward op recorded after backward');
    if (!inputs.some((v) => this.needsGrad(v))) return;
    this.differentiable.add(output.name);
    this.steps.push({ inputs, output, rule });
  }

  /** Runs every backward rule once, from the given (value, gradient) seeds. Call once per tape. */
  backward(seeds: Array<[Value, Value]>): void {
    if (this.backwardDone) fail('GRAPH_INVALID', 'tape: backward called twice');
    this.backwardDone = true;
    for (const [value, grad] of seeds) this.accumulate(value, grad);
    for (let i = this.steps.length - 1; i >= 0; i--) {
      const step = this.steps[i];
      const outputGrad = this.gradOf(step.output);
      if (outputGrad === undefined) continue;
      const inputGrads = step.rule(outputGrad);
      step.inputs.forEach((input, k) => {
        const grad = inputGrads[k];
        if (grad && this.needsGrad(input)) this.accumulate(input, grad);
      });
    }
  }

  /**
   * The summed gradient of a value, or undefined when no gradient reached it. Read once every contribution is in
   * (after `backward`, or when the step that produced the value is reached): dense terms are added in arrival order,
   * then row scatters are added into that sum (into zeros when there is none).
   */
  gradOf(value: Value): Value | undefined {
    const done = this.summed.get(value.name);
    if (done) return done;
    const parts = this.grads.get(value.name);
    if (!parts) return undefined;
    const dense = parts.filter((p): p is Value => !('scatterRows' in p));
    let sum = dense.length > 0 ? dense.reduce((a, b) => this.op1('Add', [a, b])) : undefined;
    for (const part of parts) {
      if (!('scatterRows' in part)) continue;
      const { indices, updates, like } = part.scatterRows;
      const base = sum ?? this.zerosLike(like);
      const expanded = this.op1('Expand', [this.op1('Unsqueeze', [indices, this.graph.ints([1])]), this.op1('Shape', [updates], {}, { dtypes: ['int64'] })]);
      sum = this.op1('ScatterElements', [base, expanded, updates], { axis: 0, reduction: 'add' });
    }
    if (sum) this.summed.set(value.name, sum);
    return sum;
  }

  private zerosLike(like: Value): Value {
    const zero = { tensor: { dtype: this.dtype, dims: [1], data: this.dtype === 'float64' ? new Float64Array(1) : new Float32Array(1) } };
    return this.op1('ConstantOfShape', [this.op1('Shape', [like], {}, { dtypes: ['int64'] })], { value: zero }, { dtypes: [this.dtype] });
  }

  private accumulate(value: Value, grad: Value | RowScatter): void {
    const parts = this.grads.get(value.name);
    if (parts) parts.push(grad);
    else this.grads.set(value.name, [grad]);
  }

  // ---- shape and arithmetic helpers every layer uses ----

  /** Elementwise sum of two same-shaped values (residual connections). */
  add(a: Value, b: Value): Value {
    const y = this.op1('Add', [a, b]);
    this.record([a, b], y, (g) => [g, g]);
    return y;
  }

  /** Multiplies by a scalar that carries no gradient (temperature, attention scale). */
  scale(x: Value, factor: Value): Value {
    const y = this.op1('Mul', [x, factor]);
    this.record([x], y, (g) => [this.op1('Mul', [g, factor])]);
    return y;
  }

  /** Reshape to a static shape (0 copies a dim, -1 infers one) or to a runtime int64 shape value. */
  reshape(x: Value, shape: number[] | Value): Value {
    const target = Array.isArray(shape) ? this.graph.ints(shape) : shape;
    const y = this.op1('Reshape', [x, target]);
    this.record([x], y, (g) => [this.op1('Reshape', [g, this.op1('Shape', [x], {}, { dtypes: ['int64'] })])]);
    return y;
  }

  transpose(x: Value, perm: number[]): Value {
    const y = this.op1('Transpose', [x], { perm });
    const inverse = inversePermutation(perm);
    this.record([x], y, (g) => [this.op1('Transpose', [g], { perm: inverse })]);
    return y;
  }
}

export function inversePermutation(perm: number[]): number[] {
  const inverse = new Array<number>(perm.length);
  perm.forEach((p, i) => (inverse[p] = i));
  return inverse;
}
