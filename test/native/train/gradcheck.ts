import { Graph, type Value } from '../../../native/onnx/graph.ts';
import { Session, type HostTensor } from '../../../native/ort.ts';
import { Tape } from '../../../native/train/tape.ts';
import { Rng } from '../../../core/rng.ts';

/** Test helper: gradients of a tape-built function against central finite differences, in float64. */

export interface CheckInput {
  name: string;
  dims: number[];
  /** Defaults to standard normal draws. */
  data?: Float64Array;
  /** A plain input that is not differentiated, e.g. int64 token ids. */
  fixed?: HostTensor;
}

export interface GradCheckResult {
  /** Largest |analytic − numeric| / max(|analytic|, |numeric|, floor) over every checked element. */
  maxRelativeError: number;
  checked: number;
}

type Build = (tape: Tape, values: Record<string, Value>) => Value;

/** Checks every element of every differentiable input of L = Σ build(inputs) ⊙ R for a random R. */
export async function gradCheck(inputs: CheckInput[], build: Build, options: { seed?: number; step?: number; floor?: number } = {}): Promise<GradCheckResult> {
  const rng = new Rng(options.seed ?? 1);
  const step = options.step ?? 1e-5;
  const floor = options.floor ?? 1e-7;
  const feeds: Record<string, HostTensor> = {};
  for (const input of inputs) {
    const size = input.dims.reduce((a, b) => a * b, 1);
    feeds[input.name] = input.fixed ?? { dtype: 'float64', dims: input.dims, data: input.data ?? Float64Array.from({ length: size }, () => rng.normal()) };
  }
  const forward = await Session.create(buildGraph(inputs, build).graph.toBytes(), { threads: 1 });
  const outSize = (await forward.run(feeds, ['out'])).out.data.length;
  const cotangent = Float64Array.from({ length: outSize }, () => rng.normal());
  const { graph, differentiable } = buildGraph(inputs, build, cotangent);
  const full = await Session.create(graph.toBytes(), { threads: 1 });
  const gradNames = differentiable.map((name) => `grad.${name}`);
  const analytic = await full.run(feeds, gradNames);

  const objective = async (): Promise<number> => {
    const out = (await forward.run(feeds, ['out'])).out.data as Float64Array;
    let sum = 0;
    for (let i = 0; i < out.length; i++) sum += out[i] * cotangent[i];
    return sum;
  };
  let maxRelativeError = 0;
  let checked = 0;
  for (const name of differentiable) {
    const x = feeds[name].data as Float64Array;
    const grad = analytic[`grad.${name}`].data as Float64Array;
    for (let i = 0; i < x.length; i++) {
      const saved = x[i];
      x[i] = saved + step;
      const plus = await objective();
      x[i] = saved - step;
      const minus = await objective();
      x[i] = saved;
      const numeric = (plus - minus) / (2 * step);
      const error = Math.abs(grad[i] - numeric) / Math.max(Math.abs(grad[i]), Math.abs(numeric), floor);
      maxRelativeError = Math.max(maxRelativeError, error);
      checked++;
    }
  }
  await forward.release();
  await full.release();
  return { maxRelativeError, checked };
}

function buildGraph(inputs: CheckInput[], build: Build, cotangent?: Float64Array): { graph: Graph; differentiable: string[] } {
  const graph = new Graph('gradcheck');
  const tape = new Tape(graph, 'float64');
  const values: Record<string, Value> = {};
  for (const input of inputs) {
    values[input.name] = input.fixed ? graph.input(input.name, input.fixed.dtype, [...input.fixed.dims]) : tape.parameter(input.name, input.dims);
  }
  const out = build(tape, values);
  graph.output(out, 'out');
  const differentiable = inputs.filter((input) => !input.fixed).map((input) => input.name);
  if (cotangent) {
    const seed = graph.op1('Reshape', [graph.const(cotangent, [cotangent.length], 'float64'), graph.op1('Shape', [out], {}, { dtypes: ['int64'] })]);
    tape.backward([[out, seed]]);
    for (const name of differentiable) {
      const grad = tape.gradOf(values[name]);
      if (!grad) throw new Error(`no gradient reached ${name}`);
      graph.output(grad, `grad.${name}`);
    }
  }
  return { graph, differentiable };
}

export function int64(values: number[], dims: number[]): HostTensor {
  return { dtype: 'int64', dims, data: BigInt64Array.from(values.map(BigInt)) };
}
