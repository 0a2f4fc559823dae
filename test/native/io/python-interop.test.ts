import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCheckpoint, saveCheckpoint } from '../../../native/io/checkpoint.ts';
import { encodeSafetensors, readSafetensors, readSafetensorsHeader, writeSafetensors } from '../../../native/io/safetensors.ts';
import { toHfConfig } from '../../../native/model/config.ts';
import { weightShapes, type Weights } from '../../../native/model/weights.ts';
import { randomModel, VARIANTS } from '../../support/models.ts';
import { describeNeeding, PYTHON, pythonMissing } from '../../support/optional.ts';

/** Checkpoints cross between ludus and PyTorch: `tools/python/safetensors_io.py` is the Python side. */

const python = PYTHON;
const script = join(import.meta.dirname, '../../../tools/python/safetensors_io.py');

interface Checksum {
  dtype: string;
  shape: number[];
  sum: number;
  weighted: number;
}

function runPython(...args: string[]): Record<string, unknown> {
  const result = spawnSync(python, [script, ...args], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 });
  if (result.status !== 0) throw new Error(`${python} ${script} ${args.join(' ')} failed:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

function checksumOf(data: Float32Array): { sum: number; weighted: number } {
  let sum = 0;
  let weighted = 0;
  for (let i = 0; i < data.length; i++) {
    sum += data[i];
    weighted += data[i] * ((i % 13) + 1);
  }
  return { sum, weighted };
}

function expectChecksumsMatch(pythonSide: Record<string, Checksum>, weights: Weights, dtype: string): void {
  expect(Object.keys(pythonSide).sort()).toEqual([...weights.keys()].sort());
  for (const [name, tensor] of weights) {
    const theirs = pythonSide[name];
    const ours = checksumOf(tensor.data);
    expect({ dtype: theirs.dtype, shape: theirs.shape }, name).toEqual({ dtype, shape: tensor.dims });
    expect(Math.abs(theirs.sum - ours.sum), name).toBeLessThan(1e-9);
    expect(Math.abs(theirs.weighted - ours.weighted), name).toBeLessThan(1e-9);
  }
}

const isNan16 = (bits: number, format: 'F16' | 'BF16') =>
  format === 'F16' ? (bits & 0x7c00) === 0x7c00 && (bits & 0x3ff) !== 0 : (bits & 0x7f80) === 0x7f80 && (bits & 0x7f) !== 0;

async function storedBits(path: string): Promise<Map<string, Uint16Array>> {
  const bytes = new Uint8Array(await readFile(path));
  const header = await readSafetensorsHeader(path);
  return new Map(header.entries.map((e) => [e.name, new Uint16Array(bytes.slice(header.dataStart + e.begin, header.dataStart + e.end).buffer)]));
}

describeNeeding('PyTorch', pythonMissing(['torch']), 'checkpoints shared with PyTorch', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'ludus-interop-'));
  });
  afterAll(async () => root && rm(root, { recursive: true, force: true }));

  describe('having a checkpoint saved by ludus', () => {
    const cases: [string, Record<string, unknown>, { dtype?: 'F32' | 'BF16'; shardBytes?: number }][] = [
      ...Object.entries(VARIANTS).map(([variant, overrides]) => [variant, overrides, {}] as [string, Record<string, unknown>, object]),
      ['qwen3 untied, sharded', { tie_word_embeddings: false }, { shardBytes: 20_000 }],
      ['qwen3 tied, stored as BF16', {}, { dtype: 'BF16' }],
    ];
    for (const [label, overrides, options] of cases) {
      it(`should load strictly into the transformers module tree with the same values (${label})`, async () => {
        const dir = join(root, `ludus-${label.replace(/\W+/g, '-')}`);
        const { config, weights } = randomModel(overrides);
        await saveCheckpoint(dir, config, weights, options);
        const stored = options.dtype === 'BF16' ? (await loadCheckpoint(dir)).weights : weights;
        const inspected = runPython('inspect', dir) as { architecture: string; state_dict: string[]; tensors: Record<string, Checksum> };
        expect(inspected.architecture).toBe((toHfConfig(config).architectures as string[])[0]);
        expect(inspected.state_dict).toEqual([...weightShapes(config).keys(), ...(config.tieWordEmbeddings ? ['lm_head.weight'] : [])].sort());
        expectChecksumsMatch(inspected.tensors, stored, options.dtype ?? 'F32');
      });
    }
  });

  describe('having a checkpoint written by PyTorch', () => {
    const cases: [string, Record<string, unknown>, 'F32' | 'BF16', number][] = [
      ['F32, untied, one file', { tie_word_embeddings: false }, 'F32', 1],
      ['BF16, untied, three shards', { tie_word_embeddings: false }, 'BF16', 3],
      ['BF16, tied, llama with biases', VARIANTS['llama with attention and mlp bias'], 'BF16', 1],
    ];
    for (const [label, overrides, dtype, shards] of cases) {
      it(`should load every tensor with the values PyTorch stored (${label})`, async () => {
        const dir = join(root, `torch-${label.replace(/\W+/g, '-')}`);
        await mkdir(dir);
        const { config } = randomModel(overrides);
        await writeFile(join(dir, 'config.json'), JSON.stringify(toHfConfig(config)));
        const written = runPython('write', dir, dtype, String(shards)) as { tensors: Record<string, Checksum> };
        const { weights } = await loadCheckpoint(dir);
        expectChecksumsMatch(written.tensors, weights, dtype);
      });
    }
  });

  describe('having float32 values narrowed to F16 and BF16', () => {
    it('should store the same bits as torch, NaN payloads aside', async () => {
      const dir = join(root, 'narrow');
      await mkdir(dir);
      const edge = [0, -0, 1, -1, 65504, 65519.99, 65520, 2 ** -14, 2 ** -24, 2 ** -25, 3 * 2 ** -26, 1e-7, -1e-7, 1 / 3, 3.4028234e38, Infinity, -Infinity, NaN];
      const bits = new Uint32Array(40_000);
      let state = 12345;
      for (let i = 0; i < bits.length; i++) bits[i] = state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      const tensors: Weights = new Map([
        ['edge', { dims: [edge.length], data: Float32Array.from(edge) }],
        ['random_bits', { dims: [bits.length], data: new Float32Array(bits.buffer) }],
        ['normal_range', { dims: [2000], data: Float32Array.from({ length: 2000 }, (_, i) => Math.sin(i * 0.37) * 2 ** ((i % 60) - 30)) }],
      ]);
      await writeSafetensors(join(dir, 'values.safetensors'), tensors);
      runPython('narrow', join(dir, 'values.safetensors'), dir);
      for (const format of ['F16', 'BF16'] as const) {
        await writeFile(join(dir, `ludus-${format}.safetensors`), encodeSafetensors(tensors, { dtype: format }));
        const ours = await storedBits(join(dir, `ludus-${format}.safetensors`));
        const theirs = await storedBits(join(dir, `torch-${format}.safetensors`));
        for (const name of tensors.keys()) {
          const a = ours.get(name)!;
          const b = theirs.get(name)!;
          const mismatches = [...a.keys()].filter((i) => a[i] !== b[i] && !(isNan16(a[i], format) && isNan16(b[i], format)));
          expect(mismatches.slice(0, 5).map((i) => [i, a[i].toString(16), b[i].toString(16)]), `${format} ${name}`).toEqual([]);
        }
        const readBack = (await readSafetensors(join(dir, `torch-${format}.safetensors`))).tensors.get('edge')!.data;
        expect(readBack[6]).toBe(format === 'F16' ? Infinity : 65536);
      }
    });
  });
});
