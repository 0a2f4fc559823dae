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
