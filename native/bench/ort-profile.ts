import { z } from 'zod';
import { fail } from '../../core/errors.ts';

/**
 * onnxruntime's profile of a session (SessionOptions.profile, or LUDUS_ORT_PROFILE): Chrome trace events, one per
 * node per run (`<node>_kernel_time`, with its operator and shapes in `args`) and one per run (`model_run`). Summed
 * here by operator and by node, so where a run's time goes is read, not guessed.
 */
const EventSchema = z.looseObject({
  cat: z.string(),
  name: z.string(),
  dur: z.number().nonnegative(),
  args: z.looseObject({ op_name: z.string().optional(), input_type_shape: z.array(z.record(z.string(), z.array(z.number()))).optional() }).optional(),
});

export interface OpTime {
  readonly op: string;
  /** Distinct nodes of this operator that ran. */
  readonly nodes: number;
  /** Kernel executions (nodes × runs). */
  readonly calls: number;
  readonly ms: number;
  /** Of all kernel time. */
  readonly share: number;
}

export interface NodeTime {
  readonly node: string;
  readonly op: string;
  readonly calls: number;
  readonly ms: number;
  readonly share: number;
  /** Its input shapes, as `[a,b] x [c,d]`: a node run at several shapes has an entry for each. */
  readonly shapes: string;
}

export interface ProfileSummary {
  readonly runs: number;
  /** Wall time inside the session's runs. */
  readonly runMs: number;
  /** Time inside kernels; the rest of runMs is onnxruntime's own (allocation, scheduling, copies). */
  readonly kernelMs: number;
  readonly ops: readonly OpTime[];
  readonly nodes: readonly NodeTime[];
}

const KERNEL = '_kernel_time';

/** Each input's shape (onnxruntime writes one `{ dtype: dims }` per input) as `[a,b] x [c,d]`. */
const shapeText = (shapes: readonly Readonly<Record<string, readonly number[]>>[] | undefined): string =>
  (shapes ?? []).map((s) => Object.values(s).map((dims) => `[${dims.join(',')}]`).join('')).join(' x ');

/** Sums a parsed trace (the JSON array onnxruntime writes); `top` nodes are kept, the slowest first. */
export function summarizeProfile(trace: unknown, top = 20, where = 'profile'): ProfileSummary {
  if (!Array.isArray(trace)) fail('DATA_INVALID', `${where}: an onnxruntime profile is a JSON array of trace events`, { file: where });
  const byOp = new Map<string, { nodes: Set<string>; calls: number; us: number }>();
  const byNode = new Map<string, { node: string; op: string; calls: number; us: number; shapes: string }>();
  let runs = 0;
  let runUs = 0;
  let kernelUs = 0;
  trace.forEach((raw, i) => {
    const parsed = EventSchema.safeParse(raw);
    if (!parsed.success) fail('DATA_INVALID', `${where}: event ${i} is not a trace event (${parsed.error.issues[0]?.path.join('.') || 'event'}: ${parsed.error.issues[0]?.message})`, { file: where, event: i });
    const e = parsed.data;
    if (e.cat === 'Session' && e.name === 'model_run') {
      runs += 1;
      runUs += e.dur;
    }
    if (e.cat !== 'Node' || !e.name.endsWith(KERNEL)) return;
    const node = e.name.slice(0, -KERNEL.length);
    const op = e.args?.op_name ?? 'unknown';
    kernelUs += e.dur;
    const o = byOp.get(op) ?? { nodes: new Set<string>(), calls: 0, us: 0 };
    o.nodes.add(node);
    o.calls += 1;
    o.us += e.dur;
    byOp.set(op, o);
    // A node run at several shapes (a prefill and the decode steps after it) is listed once per shape.
    const shapes = shapeText(e.args?.input_type_shape);
    const key = `${node}\u0000${shapes}`;
    const n = byNode.get(key) ?? { node, op, calls: 0, us: 0, shapes };
    n.calls += 1;
    n.us += e.dur;
    byNode.set(key, n);
  });
  const share = (us: number) => (kernelUs > 0 ? us / kernelUs : 0);
  const ops = [...byOp].map(([op, o]) => ({ op, nodes: o.nodes.size, calls: o.calls, ms: o.us / 1000, share: share(o.us) })).sort((a, b) => b.ms - a.ms);
  const nodes = [...byNode.values()]
    .map((n) => ({ node: n.node, op: n.op, calls: n.calls, ms: n.us / 1000, share: share(n.us), shapes: n.shapes }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, top);
  return { runs, runMs: runUs / 1000, kernelMs: kernelUs / 1000, ops, nodes };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`.padStart(6);

export function formatProfile(file: string, s: ProfileSummary): string {
  const lines = [
    `${file}: ${s.runs} runs, ${(s.runMs / 1000).toFixed(2)} s in runs, ${(s.kernelMs / 1000).toFixed(2)} s in kernels (${s.runMs > 0 ? pct(s.kernelMs / s.runMs).trim() : 'n/a'})`,
    `  ${'operator'.padEnd(24)} ${'nodes'.padStart(6)} ${'calls'.padStart(7)} ${'ms'.padStart(10)}  share`,
    ...s.ops.map((o) => `  ${o.op.padEnd(24)} ${String(o.nodes).padStart(6)} ${String(o.calls).padStart(7)} ${o.ms.toFixed(1).padStart(10)} ${pct(o.share)}`),
    `  slowest nodes:`,
    ...s.nodes.map((n) => `  ${n.ms.toFixed(1).padStart(10)} ms ${pct(n.share)} ${n.op.padEnd(16)} ${n.node} ×${n.calls}  ${n.shapes}`),
  ];
  return `${lines.join('\n')}\n`;
}
