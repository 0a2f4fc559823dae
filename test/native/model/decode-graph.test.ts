import { describe, expect, it } from 'vitest';
import { buildDecodeGraph } from '../../../native/model/decode-graph.ts';
import { weightBytes } from '../../../native/model/memory.ts';
import { presetConfig } from '../../../native/model/presets.ts';

describe('buildDecodeGraph', () => {
  describe('having the shape of Qwen3-0.6B (2.4 GB of float32 weights, past the 2 GB protobuf limit)', () => {
    for (const weights of ['inputs', 'initializers'] as const) {
      it(`should keep every weight out of the protobuf (${weights})`, () => {
        const config = presetConfig('qwen3-0.6b');
        expect(weightBytes(config)).toBeGreaterThan(2 ** 31);
        for (const output of ['last', 'all'] as const) expect(buildDecodeGraph(config, { output, weights }).toBytes().length).toBeLessThan(1_000_000);
      });
    }
  });
});

describe('buildDecodeGraph in the gpu op set', () => {
  describe('having the shape of Qwen3-0.6B', () => {
    it('should use no op the WebGPU provider of onnxruntime 1.30 lacks, encoded at opset 20', async () => {
      const onnxProto = (await import('onnx-proto')).default;
      const { OPSET } = await import('../../../native/model/op-set.ts');
      const config = presetConfig('qwen3-0.6b');
      for (const output of ['last', 'all'] as const) {
        const bytes = buildDecodeGraph(config, { output, weights: 'initializers', opSet: 'gpu' }).toBytes(OPSET.gpu);
        const model = onnxProto.onnx.ModelProto.decode(bytes);
        const ops = new Set(model.graph!.node!.map((node) => node.opType!));
        for (const op of ['FusedMatMul', 'RMSNormalization', 'GatherND', 'LogSoftmax']) expect(ops.has(op), `${output}: ${op}`).toBe(false);
        expect(ops.has('SimplifiedLayerNormalization')).toBe(true);
        expect(Number(model.opsetImport!.find((o) => o.domain === '')!.version)).toBe(20);
        const cpuOps = new Set(onnxProto.onnx.ModelProto.decode(buildDecodeGraph(config, { output, weights: 'initializers' }).toBytes()).graph!.node!.map((node) => node.opType!));
        expect(cpuOps.has('FusedMatMul')).toBe(true);
      }
    });
  });
});
