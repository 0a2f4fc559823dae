import { describe, expect, it } from 'vitest';
import { AdamW, type Parameter } from '../../../native/train/adamw.ts';
import { LudusError } from '../../../core/errors.ts';

const params = (): Map<string, Parameter> =>
  new Map([
    ['layer.weight', { dims: [3], data: Float32Array.from([0.5, -1.0, 2.0]) }],
    ['layer.bias', { dims: [2], data: Float32Array.from([0.1, -0.2]) }],
    ['model.norm.weight', { dims: [1], data: Float32Array.from([1.0]) }],
  ]);
const gradsOf = (values: Record<string, number[]>): Map<string, Float32Array> =>
  new Map(Object.entries(values).map(([name, g]) => [name, Float32Array.from(g)]));

/** The textbook AdamW update, one scalar at a time, in float64. */
function closedForm(p0: number, grads: number[], lr: number, wd: number, b1 = 0.9, b2 = 0.999, eps = 1e-8): number {
  let [p, m, v] = [p0, 0, 0];
  grads.forEach((g, index) => {
    const t = index + 1;
    m = b1 * m + (1 - b1) * g;
    v = b2 * v + (1 - b2) * g * g;
    const mHat = m / (1 - b1 ** t);
    const vHat = v / (1 - b2 ** t);
    p = p - lr * wd * p - (lr * mHat) / (Math.sqrt(vHat) + eps);
  });
  return p;
}

describe('AdamW', () => {
  it('matches the closed-form update over two steps, with decay only on matrices', () => {
    const p = params();
    const opt = new AdamW(p, { lr: 0.01, weightDecay: 0.1, maxGradNorm: null });
    const steps = [
      { 'layer.weight': [0.3, -0.2, 0.05], 'layer.bias': [1.0, -0.4], 'model.norm.weight': [0.25] },
      { 'layer.weight': [-0.1, 0.6, 0.05], 'layer.bias': [0.2, 0.2], 'model.norm.weight': [-0.5] },
    ];
    for (const s of steps) opt.apply(gradsOf(s));
    const initial = params();
    for (const [name, t] of p) {
      const wd = name === 'layer.weight' ? 0.1 : 0;
      t.data.forEach((value, i) => {
        const history = steps.map((s) => s[name as keyof typeof s][i]);
        expect(value).toBeCloseTo(closedForm(initial.get(name)!.data[i], history, 0.01, wd), 6);
      });
    }
    expect(opt.step).toBe(2);
  });

  it('clips gradients to the global norm and reports the norm before clipping', () => {
    const p = params();
    const opt = new AdamW(p, { lr: 0.01, weightDecay: 0, maxGradNorm: 1.0 });
    // Global norm sqrt(9 + 16) = 5 → scaled by 1/5.
    const result = opt.apply(gradsOf({ 'layer.weight': [3, 0, 0], 'layer.bias': [0, 4], 'model.norm.weight': [0] }));
    expect(result.gradNorm).toBeCloseTo(5, 6);
    expect(result.clipped).toBe(true);
    const state = opt.state();
    expect(state.m['layer.weight'][0]).toBeCloseTo(0.1 * (3 / 5), 6);
    expect(state.m['layer.bias'][1]).toBeCloseTo(0.1 * (4 / 5), 6);
  });

  it('leaves small gradients unclipped', () => {
    const opt = new AdamW(params(), { maxGradNorm: 10 });
    const result = opt.apply(gradsOf({ 'layer.weight': [3, 0, 0], 'layer.bias': [0, 4], 'model.norm.weight': [0] }));
    expect(result.clipped).toBe(false);
    expect(opt.state().m['layer.weight'][0]).toBeCloseTo(0.3, 6);
  });

  it('raises NON_FINITE naming the tensor and step, and applies nothing', () => {
    const p = params();
    const opt = new AdamW(p, { lr: 0.01 });
    opt.apply(gradsOf({ 'layer.weight': [1, 1, 1], 'layer.bias': [1, 1], 'model.norm.weight': [1] }));
    const before = [...p].map(([, t]) => Float32Array.from(t.data));
    const stateBefore = opt.state();
    let error: unknown;
    try {
      opt.apply(gradsOf({ 'layer.weight': [1, 1, 1], 'layer.bias': [1, Number.NaN], 'model.norm.weight': [1] }));
    } catch (e) {
      error = e;
    }
    expect(LudusError.is(error, 'NON_FINITE')).toBe(true);
    expect((error as LudusError).message).toContain('layer.bias');
    expect((error as LudusError).details).toMatchObject({ tensor: 'layer.bias', step: 2 });
    [...p].forEach(([, t], k) => expect(Array.from(t.data)).toEqual(Array.from(before[k])));
    expect(opt.state()).toEqual(stateBefore);
    expect(opt.step).toBe(1);
  });

  it('raises NON_FINITE for an infinite loss', () => {
    const opt = new AdamW(params());
    expect(() => opt.apply(gradsOf({ 'layer.weight': [0, 0, 0], 'layer.bias': [0, 0], 'model.norm.weight': [0] }), { loss: Infinity })).toThrow(/NON_FINITE.*loss/);
  });

  it('round-trips its state through plain typed arrays', () => {
    const a = new AdamW(params(), { lr: 0.01 });
    const g = gradsOf({ 'layer.weight': [0.3, -0.2, 0.05], 'layer.bias': [1.0, -0.4], 'model.norm.weight': [0.25] });
    a.apply(g);
    const pb = params();
    const b = new AdamW(pb, { lr: 0.01 });
    b.loadState(a.state());
    // Same parameters as a after its first step, then one more identical step on both.
    const pa = params();
    const a2 = new AdamW(pa, { lr: 0.01 });
    a2.apply(g);
    for (const [name, t] of pa) pb.get(name)!.data.set(t.data);
    a2.apply(g);
    b.apply(g);
    for (const [name, t] of pa) expect(Array.from(pb.get(name)!.data)).toEqual(Array.from(t.data));
    expect(b.step).toBe(2);
  });

  it('rejects an invalid config', () => {
    expect(() => new AdamW(params(), { betas: [0.9, 1.5] })).toThrow(/CONFIG_INVALID.*betas/);
  });
});
