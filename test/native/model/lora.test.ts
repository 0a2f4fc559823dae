import { afterAll, describe, expect, it } from 'vitest';
import { adaptedWeights, adapterOf, adapterParameterCount, adapterShapes, initAdapter, mergeAdapter, withAdapter } from '../../../native/model/lora.ts';
import { parseLoraConfig } from '../../../native/model/lora-config.ts';
import { presetConfig } from '../../../native/model/presets.ts';
import { cloneWeights } from '../../../native/model/weights.ts';
import { Scorer } from '../../../native/runtime/scorer.ts';
import type { Policy } from '../../../native/runtime/policy.ts';
import { Learner } from '../../../native/train/learner.ts';
import { Rng } from '../../../core/rng.ts';
import { randomModel } from '../../support/models.ts';
import { logSoftmax, referenceLogits } from '../../support/reference-model.ts';

const sequences = [[3, 17, 42, 5, 9, 11], [8, 1, 30]];

describe('LoRA adapters', () => {
  const opened: Array<{ release(): Promise<void> }> = [];
  afterAll(async () => Promise.all(opened.map((s) => s.release())));
  const { config: base, weights } = randomModel({ model_type: 'llama', attention_bias: true, tie_word_embeddings: false }, 5);

  const adapted = (lora: Record<string, unknown>, seed: number): Policy => {
    const config = withAdapter(base, parseLoraConfig(lora));
    return { name: `adapter-${seed}`, config, weights: adaptedWeights(weights, initAdapter(config, seed)), tokenizerHash: 'test-vocab' };
  };
  const scoreWith = async (policy: Policy): Promise<Array<Array<number | null>>> => {
    const scorer = await Scorer.create(policy, { threads: 1 });
    opened.push(scorer);
    return (await scorer.score(sequences)).map((s) => s.logprobs);
  };
  const expectReference = (scored: Array<Array<number | null>>, reference: typeof weights, digits = 4): void => {
    for (const [row, seq] of sequences.entries()) {
      const logits = referenceLogits(base, reference, seq);
      for (let t = 1; t < seq.length; t++) expect(scored[row][t]).toBeCloseTo(logSoftmax(logits[t - 1])[seq[t]], digits);
    }
  };

  it('counts Agon §4\'s "about 10M parameters" for a rank-16 adapter on all seven projections of Qwen3-0.6B', () => {
    const config = withAdapter(presetConfig('qwen3-0.6b'), parseLoraConfig({}));
    expect(adapterParameterCount(config)).toBe(10_092_544);
    const counted = [...adapterShapes(config).values()].reduce((n, [a, b]) => n + a * b, 0);
    expect(counted).toBe(adapterParameterCount(config));
  });

  it('starts as the base with PEFT initialization (B = 0)', async () => {
    expectReference(await scoreWith(adapted({ r: 4 }, 1)), weights);
  });

  it('computes what the merged checkpoint computes, W + (alpha/r)·B·A, on a subset of projections', async () => {
    const policy = adapted({ r: 4, alpha: 6, targetModules: ['q_proj', 'v_proj', 'down_proj'], initStdB: 0.2 }, 2);
    const merged = mergeAdapter(policy.config, policy.weights);
    expect(merged.get('model.layers.0.self_attn.q_proj.weight')!.data).not.toEqual(weights.get('model.layers.0.self_attn.q_proj.weight')!.data);
    expect(merged.get('model.layers.0.self_attn.k_proj.weight')!.data).toBe(weights.get('model.layers.0.self_attn.k_proj.weight')!.data);
    const scored = await scoreWith(policy);
    expectReference(scored, merged);
    // And not what the base computes: the adapter changed the model.
    const baseLogits = referenceLogits(base, weights, sequences[0]);
    expect(Math.abs(scored[0][3]! - logSoftmax(baseLogits[2])[sequences[0][3]])).toBeGreaterThan(1e-3);
  });

  it('trains the adapter alone: the base arrays stay bit for bit, the optimizer holds adapter moments only, and the training graph scores as the decode graph does', async () => {
    const policy = adapted({ r: 4, targetModules: ['q_proj', 'o_proj', 'up_proj'] }, 3);
    const before = cloneWeights(weights);
    const learner = await Learner.create(policy.config, policy.weights, { objective: 'sft', optimizer: { lr: 1e-2 }, threads: 1 });
    opened.push(learner);
    const rng = new Rng(4);
    const cols = 12;
    const row = Array.from({ length: cols + 1 }, () => rng.int(base.vocabSize));
    const batch = { rows: 1, cols, inputIds: Int32Array.from(row.slice(0, cols)), targets: Int32Array.from(row.slice(1)), lossMask: new Float32Array(cols).fill(1) };
    const first = await learner.step(batch);
    let last = first;
    for (let i = 0; i < 15; i++) last = await learner.step(batch);
    expect(last.loss).toBeLessThan(first.loss * 0.7);
    for (const [name, t] of before) expect(weights.get(name)!.data, name).toEqual(t.data);
    const state = learner.optimizerState();
    expect(Object.keys(state.m).sort()).toEqual([...adapterShapes(policy.config).keys()].sort());
    expect(policy.weights.get('model.layers.0.self_attn.q_proj.lora_B.weight')!.data.some((x) => x !== 0)).toBe(true);

    const fromLearner = await learner.score({ rows: 1, cols: sequences[0].length, inputIds: Int32Array.from(sequences[0]) });
    const fromDecoder = await scoreWith(policy);
    for (let t = 1; t < sequences[0].length; t++) expect(fromLearner[t - 1]).toBeCloseTo(fromDecoder[0][t]!, 4);
    expectReference(fromDecoder, mergeAdapter(policy.config, policy.weights));
  });

  it('scores rows of one batch under different adapters over the one base, each as that adapter alone does', async () => {
    const one = adapted({ r: 4, alpha: 8, targetModules: ['q_proj', 'v_proj', 'o_proj', 'down_proj'], initStdB: 0.3 }, 7);
    const two = adapted({ r: 4, alpha: 8, targetModules: ['q_proj', 'v_proj', 'o_proj', 'down_proj'], initStdB: 0.3 }, 8);
    const adapterOf = [0, 1, 1, 0];
    const batch = [sequences[0], sequences[0], sequences[1], sequences[1]];
    const mixed = await Scorer.create({ ...one, weights }, { threads: 1, adapters: [adapterTensors(one), adapterTensors(two)] });
    opened.push(mixed);
    const scored = await mixed.score(batch, { adapterOf });
    const alone = [await scoreWith(one), await scoreWith(two)];
    for (const [row, seq] of batch.entries()) {
      const expected = alone[adapterOf[row]][sequences.indexOf(seq)];
      for (let t = 1; t < seq.length; t++) expect(scored[row].logprobs[t]).toBeCloseTo(expected[t]!, 5);
    }
    // The two adapters do differ on the same sequence, so the rows really took their own.
    expect(Math.abs(scored[0].logprobs[3]! - scored[1].logprobs[3]!)).toBeGreaterThan(1e-4);
    await expect(mixed.score(batch, { adapterOf: [0, 1, 2, 0] })).rejects.toThrow(/INPUT_INVALID/);
  });
});

function adapterTensors(policy: Policy) {
  return adapterOf(policy.config, policy.weights);
}
