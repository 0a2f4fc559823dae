import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { summarizeProfile } from '../../../native/bench/ort-profile.ts';
import { Graph } from '../../../native/onnx/graph.ts';
import { Session } from '../../../native/ort.ts';
import { runLudus } from '../../support/cli.ts';

/** A session of y = relu(x·w) + x, profiled into `dir`, run `runs` times and released; the profile file it wrote. */
async function profiledRuns(dir: string, runs: number): Promise<string> {
  const g = new Graph('profiled');
  const x = g.input('x', 'float32', [64, 64]);
  const w = g.initializer('w', { dtype: 'float32', dims: [64, 64], data: Float32Array.from({ length: 64 * 64 }, (_, i) => Math.sin(i)) });
  g.output(g.op1('Add', [g.op1('Relu', [g.op1('MatMul', [x, w])]), x]), 'y');
  const session = await Session.create(g.toBytes(), { threads: 1, label: 'tiny graph', profile: join(dir, 'p-') });
  for (let i = 0; i < runs; i++) await session.run({ x: { dtype: 'float32', dims: [64, 64], data: new Float32Array(64 * 64).fill(0.5) } }, ['y']);
  await session.release();
  const files = (await readdir(dir)).filter((f) => f.startsWith('p-tiny-graph') && f.endsWith('.json'));
  expect(files).toHaveLength(1);
  return join(dir, files[0]);
}

describe("onnxruntime's profile of a session", () => {
  it('should be written on release when asked for, and sum to every node of every run by operator', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ludus-profile-'));
    const file = await profiledRuns(dir, 3);
    const summary = summarizeProfile(JSON.parse(await readFile(file, 'utf8')), 5, file);
    expect(summary.runs).toBe(3);
    const ops = Object.fromEntries(summary.ops.map((o) => [o.op, o]));
    // onnxruntime may fuse the MatMul and Relu; the Add stays a node of its own. Every node ran once a run.
    expect(ops.Add).toMatchObject({ nodes: 1, calls: 3 });
    for (const o of summary.ops) expect(o.calls).toBe(3 * o.nodes);
    expect(summary.ops.reduce((n, o) => n + o.ms, 0)).toBeCloseTo(summary.kernelMs, 6);
    expect(summary.ops.reduce((n, o) => n + o.share, 0)).toBeCloseTo(1, 6);
    expect(summary.kernelMs).toBeGreaterThan(0);
    expect(summary.kernelMs).toBeLessThanOrEqual(summary.runMs);
    expect(summary.nodes.find((n) => n.op === 'Add')?.shapes).toBe('[64,64] x [64,64]');
    expect(summary.nodes.map((n) => n.ms)).toEqual([...summary.nodes.map((n) => n.ms)].sort((a, b) => b - a));
  });

  it('should sum by hand the events it is given, and refuse what is not a trace with DATA_INVALID naming the event', () => {
    const node = (name: string, op: string, dur: number) => ({ cat: 'Node', name: `${name}_kernel_time`, dur, ph: 'X', args: { op_name: op, input_type_shape: [{ float: [2, 3] }] } });
    const trace = [
      { cat: 'Session', name: 'model_run', dur: 100, ph: 'X' },
      node('a', 'Gemm', 60),
      { cat: 'Node', name: 'a_fence_before', dur: 5, ph: 'X' },
      node('b', 'Mul', 20),
      { cat: 'Session', name: 'model_run', dur: 50, ph: 'X' },
      node('a', 'Gemm', 30),
      { cat: 'Session', name: 'model_run', dur: 10, ph: 'X' },
      { ...node('a', 'Gemm', 8), args: { op_name: 'Gemm', input_type_shape: [{ float: [1, 3] }] } },
    ];
    const s = summarizeProfile(trace, 5);
    expect(s).toMatchObject({ runs: 3, runMs: 0.16, kernelMs: 0.118 });
    expect(s.ops).toEqual([
      { op: 'Gemm', nodes: 1, calls: 3, ms: 0.098, share: 98 / 118 },
      { op: 'Mul', nodes: 1, calls: 1, ms: 0.02, share: 20 / 118 },
    ]);
    // Node a ran at two shapes: an entry for each, the slowest first.
    expect(s.nodes).toEqual([
      { node: 'a', op: 'Gemm', calls: 2, ms: 0.09, share: 90 / 118, shapes: '[2,3]' },
      { node: 'b', op: 'Mul', calls: 1, ms: 0.02, share: 20 / 118, shapes: '[2,3]' },
      { node: 'a', op: 'Gemm', calls: 1, ms: 0.008, share: 8 / 118, shapes: '[1,3]' },
    ]);
    expect(summarizeProfile(trace, 1).nodes).toHaveLength(1);
    expect(() => summarizeProfile({ events: [] })).toThrow(LudusError);
    expect(() => summarizeProfile([trace[0], { cat: 'Node', name: 'x_kernel_time' }], 5, 'f.json')).toThrow(/f\.json: event 1 is not a trace event \(dur/);
    const badShape = { ...node('c', 'Add', 1), args: { op_name: 'Add', input_type_shape: [null] } };
    expect(() => summarizeProfile([badShape], 5, 'g.json')).toThrow(/g\.json: event 0 is not a trace event \(args\.input_type_shape\.0/);
  });

  it('should print the table from the command line, and DATA_INVALID for a file that is not a profile', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ludus-profile-'));
    const file = await profiledRuns(dir, 2);
    const shown = await runLudus(['bench', 'profile', file, '--top', '2']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/: 2 runs, [\d.]+ s in runs, [\d.]+ s in kernels/);
    expect(shown.stdout).toMatch(/\n {2}Add +1 +2 /);
    const json = JSON.parse((await runLudus(['bench', 'profile', file, '--json'])).stdout) as { runs: number; ops: { op: string }[] };
    expect(json.runs).toBe(2);
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"not": "a trace"}');
    const refused = await runLudus(['bench', 'profile', bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('[DATA_INVALID]');
  });
});
