import { Graph } from '../onnx/graph.ts';
import { Session } from '../ort.ts';

/**
 * Σ g² of large gradient tensors, for AdamW's clipping norm, on onnxruntime's threads: vectorized, where the
 * optimizer's JavaScript loop is one scalar thread (150M floats, two threads: 60 ms against 335 ms; Qwen3-0.6B's
 * 596M gradients about 1 s of a step). Each run reduces ROWS rows of WIDTH floats to one float32 sum per row, and the
 * rows' sums are added in double: float32 sums of a whole 1M-element chunk were 0.12% off.
 */
const WIDTH = 1024;
const ROWS = 1024;

/** Tensors from this many elements go through onnxruntime (ours); below it a run's fixed cost outweighs the loop. */
export const SQUARE_SUMS_MIN_ELEMENTS = 1 << 18;

function rowSumsGraph(): Uint8Array {
  const g = new Graph('gradient square sums');
  const x = g.input('x', 'float32', ['R', WIDTH]);
  g.output(g.op1('ReduceSumSquare', [x, g.ints([1])], { keepdims: 0 }), 'sums', ['R']);
  return g.toBytes();
}

export class SquareSums {
  private constructor(private readonly session: Session) {}

  static async create(threads: number): Promise<SquareSums> {
    return new SquareSums(await Session.create(rowSumsGraph(), { threads, label: 'gradient square sums', spinning: 'idle' }));
  }

  /** Σ x², non-finite wherever an element is. */
  async of(x: Float32Array): Promise<number> {
    let total = 0;
    const whole = x.length - (x.length % WIDTH);
    for (let i = 0; i < whole; i += ROWS * WIDTH) {
      const end = Math.min(whole, i + ROWS * WIDTH);
      const out = await this.session.run({ x: { dtype: 'float32', dims: [(end - i) / WIDTH, WIDTH], data: x.subarray(i, end) } }, ['sums']);
      for (const s of out.sums.data as Float32Array) total += s;
    }
    for (let i = whole; i < x.length; i++) total += x[i] * x[i];
    return total;
  }

  /** The sums of every tensor of `tensors` from SQUARE_SUMS_MIN_ELEMENTS up, by name; smaller ones are left to the caller. */
  async ofLarge(tensors: ReadonlyMap<string, Float32Array>): Promise<Map<string, number>> {
    const sums = new Map<string, number>();
    for (const [name, t] of tensors) if (t.length >= SQUARE_SUMS_MIN_ELEMENTS) sums.set(name, await this.of(t));
    return sums;
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
