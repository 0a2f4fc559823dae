import type { ModelConfig } from '../../native/model/config.ts';
import { layerPrefix, type Weights } from '../../native/model/weights.ts';

/**
 * A deliberately plain float64 forward pass written from the transformers Qwen3/Qwen2/Llama code, used as the
 * independent reference the engine's graphs are checked against. Returns logits [T][V].
 */
export function referenceLogits(c: ModelConfig, w: Weights, tokens: readonly number[]): number[][] {
  const get = (name: string) => {
    const t = w.get(name);
    if (!t) throw new Error(`missing ${name}`);
    return t;
  };
  const linear = (x: number[], name: string, bias?: string): number[] => {
    const t = get(name);
    const [out, inp] = t.dims;
    const b = bias && w.has(bias) ? get(bias).data : null;
    const y = new Array<number>(out).fill(0);
    for (let o = 0; o < out; o++) {
      let acc = b ? b[o] : 0;
      for (let i = 0; i < inp; i++) acc += x[i] * t.data[o * inp + i];
      y[o] = acc;
    }
    return y;
  };
  const rms = (x: number[], name: string): number[] => {
    const weight = get(name).data;
    const ms = x.reduce((a, v) => a + v * v, 0) / x.length;
    const r = 1 / Math.sqrt(ms + c.rmsNormEps);
    return x.map((v, i) => v * r * weight[i]);
  };
  const rope = (x: number[], pos: number): number[] => {
    const half = c.headDim / 2;
    const y = x.slice();
    for (let i = 0; i < half; i++) {
      const angle = pos / c.ropeTheta ** ((2 * i) / c.headDim);
      const cos = Math.cos(angle);
      const sin = Math.sin(angle);
      y[i] = x[i] * cos - x[i + half] * sin;
      y[i + half] = x[i + half] * cos + x[i] * sin;
    }
    return y;
  };
  const heads = (x: number[], n: number) => Array.from({ length: n }, (_, h) => x.slice(h * c.headDim, (h + 1) * c.headDim));

  const embed = get('model.embed_tokens.weight');
  const D = c.hiddenSize;
  let xs = tokens.map((t) => Array.from(embed.data.subarray(t * D, (t + 1) * D)));
  for (let layer = 0; layer < c.numLayers; layer++) {
    const p = layerPrefix(layer);
    const ks: number[][][] = [];
    const vs: number[][][] = [];
    const qs: number[][][] = [];
    xs.forEach((x, pos) => {
      const h = rms(x, `${p}.input_layernorm.weight`);
      let q = heads(linear(h, `${p}.self_attn.q_proj.weight`, `${p}.self_attn.q_proj.bias`), c.numHeads);
      let k = heads(linear(h, `${p}.self_attn.k_proj.weight`, `${p}.self_attn.k_proj.bias`), c.numKvHeads);
      const v = heads(linear(h, `${p}.self_attn.v_proj.weight`, `${p}.self_attn.v_proj.bias`), c.numKvHeads);
      if (c.qkNorm) {
        q = q.map((hq) => rms(hq, `${p}.self_attn.q_norm.weight`));
        k = k.map((hk) => rms(hk, `${p}.self_attn.k_norm.weight`));
      }
      qs.push(q.map((hq) => rope(hq, pos)));
      ks.push(k.map((hk) => rope(hk, pos)));
      vs.push(v);
    });
    const group = c.numHeads / c.numKvHeads;
    xs = xs.map((x, pos) => {
      const attn: number[] = [];
      for (let h = 0; h < c.numHeads; h++) {
        const kv = Math.floor(h / group);
        const scores = [];
        for (let j = 0; j <= pos; j++) scores.push(qs[pos][h].reduce((a, v, i) => a + v * ks[j][kv][i], 0) / Math.sqrt(c.headDim));
        const max = Math.max(...scores);
        const e = scores.map((s) => Math.exp(s - max));
        const z = e.reduce((a, v) => a + v, 0);
        for (let i = 0; i < c.headDim; i++) {
          let acc = 0;
          for (let j = 0; j <= pos; j++) acc += (e[j] / z) * vs[j][kv][i];
          attn.push(acc);
        }
      }
      const o = linear(attn, `${p}.self_attn.o_proj.weight`, `${p}.self_attn.o_proj.bias`);
      const x1 = x.map((v, i) => v + o[i]);
      const h2 = rms(x1, `${p}.post_attention_layernorm.weight`);
      const gate = linear(h2, `${p}.mlp.gate_proj.weight`, `${p}.mlp.gate_proj.bias`);
      const up = linear(h2, `${p}.mlp.up_proj.weight`, `${p}.mlp.up_proj.bias`);
      const act = gate.map((gv, i) => (gv / (1 + Math.exp(-gv))) * up[i]);
      const down = linear(act, `${p}.mlp.down_proj.weight`, `${p}.mlp.down_proj.bias`);
      return x1.map((v, i) => v + down[i]);
    });
  }
  const head = c.tieWordEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight';
  return xs.map((x) => linear(rms(x, 'model.norm.weight'), head));
}

export function logSoftmax(logits: ArrayLike<number>): number[] {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) max = Math.max(max, logits[i]);
  let z = 0;
  for (let i = 0; i < logits.length; i++) z += Math.exp(logits[i] - max);
  const lz = max + Math.log(z);
  return Array.from(logits, (v) => v - lz);
}
