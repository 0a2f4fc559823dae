import { describe, expect, it } from 'vitest';
import { checkPlacement, verboseLogOf } from '../../native/bench/placement-check.ts';
import { fallbacks, parsePlacement } from '../../native/placement.ts';

/** A decode graph on the WebGPU provider with two nodes left to the CPU, in onnxruntime 1.30's log format. */
const prefix = (level: string, where: string): string => `2026-12-03 09:17:44.600579142 [${level}:onnxruntime:, ${where}]`;
const mixedLog = [
  `${prefix('I', 'fallback_cpu_capability.cc:140 GetCpuPreferredNodes')} Candidate for fallback CPU execution: /layer0/Shape`,
  `${prefix('V', 'webgpu_execution_provider.cc:812 GetCapability')} webgpu kernel not found in registries for Op type: LogSoftmax node name: logprobs_op`,
  `${prefix('V', 'webgpu_execution_provider.cc:812 GetCapability')} webgpu kernel not found in registries for Op type: GatherND node name: last_row`,
  `${prefix('I', 'transformer_memcpy.cc:393 AddCopyNode')} Add MemcpyToHost before last_row for CPUExecutionProvider`,
  `${prefix('V', 'session_state.cc:1377 VerifyEachNodeIsAssignedToAnEp')} Node placements`,
  `${prefix('V', 'session_state.cc:1385 VerifyEachNodeIsAssignedToAnEp')}  Node(s) placed on [WebGpuExecutionProvider]. Number of nodes: 5`,
  `${prefix('V', 'session_state.cc:1387 VerifyEachNodeIsAssignedToAnEp')}   MatMul (q_proj)`,
  `${prefix('V', 'session_state.cc:1387 VerifyEachNodeIsAssignedToAnEp')}   Softmax (attn_softmax)`,
  `${prefix('V', 'session_state.cc:1387 VerifyEachNodeIsAssignedToAnEp')}   MemcpyFromHost (Memcpy)`,
  `${prefix('V', 'session_state.cc:1387 VerifyEachNodeIsAssignedToAnEp')}   MemcpyToHost (Memcpy_token_1)`,
  `${prefix('V', 'session_state.cc:1387 VerifyEachNodeIsAssignedToAnEp')}   Add (residual)`,
  `${prefix('V', 'session_state.cc:1385 VerifyEachNodeIsAssignedToAnEp')}  Node(s) placed on [CPUExecutionProvider]. Number of nodes: 3`,
  `${prefix('V', 'session_state.cc:1387 VerifyEachNodeIsAssignedToAnEp')}   GatherND (last_row)`,
  `${prefix('V', 'session_state.cc:1387 VerifyEachNodeIsAssignedToAnEp')}   LogSoftmax (logprobs_op)`,
  `${prefix('V', 'session_state.cc:1387 VerifyEachNodeIsAssignedToAnEp')}   LogSoftmax (logprobs_op_2)`,
  `${prefix('W', 'session_state.cc:1389 VerifyEachNodeIsAssignedToAnEp')} Some nodes were not assigned to the preferred execution providers which may or may not have an negative impact on performance. e.g. ORT explicitly assigns shape related ops to CPU to improve perf.`,
  `${prefix('V', 'session_state.cc:186 CreateGraphInfo')} SaveMLValueNameIndexMapping`,
].join('\n');

describe('parsePlacement and fallbacks', () => {
  describe('having a log where the WebGPU provider left nodes to the CPU', () => {
    it('should list exactly those nodes, their op types and the copies around them', () => {
      const placement = parsePlacement(mixedLog);
      expect(placement.counts).toEqual({ WebGpuExecutionProvider: 5, CPUExecutionProvider: 3 });
      const left = fallbacks(placement, 'WebGpuExecutionProvider');
      expect(left.nodes).toEqual([{ op: 'GatherND', name: 'last_row' }, { op: 'LogSoftmax', name: 'logprobs_op' }, { op: 'LogSoftmax', name: 'logprobs_op_2' }]);
      expect(left.count).toBe(3);
      expect(left.ops).toEqual([['LogSoftmax', 2], ['GatherND', 1]]);
      expect(left.copies).toBe(2);
      expect(placement.noKernel.map((node) => node.op)).toEqual(['LogSoftmax', 'GatherND']);
    });

    it('should find nothing left over from the CPU provider’s side but the GPU nodes', () => {
      const left = fallbacks(parsePlacement(mixedLog), 'CPUExecutionProvider');
      expect(left.nodes.map((node) => node.op)).toEqual(['MatMul', 'Softmax', 'Add']);
    });
  });

  describe('having a log with node lines printed bare, as a multi-line message', () => {
    it('should read them alike', () => {
      const bare = `${prefix('V', 'session_state.cc:1385 VerifyEachNodeIsAssignedToAnEp')}  Node(s) placed on [CPUExecutionProvider]. Number of nodes: 1\n  RMSNormalization (norm_0)\n${prefix('V', 'x')}  Node(s) placed on [CUDAExecutionProvider]. Number of nodes: 0\n`;
      expect(fallbacks(parsePlacement(bare), 'CUDAExecutionProvider').nodes).toEqual([{ op: 'RMSNormalization', name: 'norm_0' }]);
    });
  });

  describe('having a log without placements', () => {
    it('should refuse it with DATA_INVALID', () => {
      expect(() => parsePlacement('Session successfully initialized.')).toThrow(/DATA_INVALID.*verbose/);
    });
  });

  describe("having onnxruntime's own verbose log of the decode graph on the CPU", () => {
    it('should place every node on the CPU, none of them taken by the WebGPU provider', async () => {
      const log = await verboseLogOf({ preset: 'qwen3-micro', graph: 'decode', device: 'cpu', seed: 1 });
      const placement = parsePlacement(log);
      const nodes = placement.counts.CPUExecutionProvider;
      expect(Object.keys(placement.counts)).toEqual(['CPUExecutionProvider']);
      expect(nodes).toBeGreaterThan(20);
      expect(fallbacks(placement, 'CPUExecutionProvider').count).toBe(0);
      expect(fallbacks(placement, 'WebGpuExecutionProvider').count).toBe(nodes);
    });
  });
});

describe('checkPlacement', () => {
  describe('having the CPU device', () => {
    it('should report the decode, score and train graphs with nothing left over', async () => {
      const report = await checkPlacement({ device: 'cpu', preset: 'qwen3-micro' });
      expect(report.map((r) => r.graph)).toEqual(['decode', 'score', 'train']);
      for (const graph of report) {
        expect(graph.count, graph.graph).toBe(0);
        expect(graph.counts.CPUExecutionProvider, graph.graph).toBeGreaterThan(20);
      }
    });
  });

  describe('having --device webgpu on a machine without a usable adapter', () => {
    it('should fail with DEVICE_UNAVAILABLE', async (context) => {
      const { ensureDevice } = await import('../../native/ort.ts');
      if (await ensureDevice('webgpu').then(() => true, () => false)) context.skip();
      await expect(checkPlacement({ device: 'webgpu', preset: 'qwen3-micro', graphs: ['decode'] })).rejects.toThrow(/DEVICE_UNAVAILABLE/);
    });
  });
});
