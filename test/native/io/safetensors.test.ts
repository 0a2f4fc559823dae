import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LudusError, type LudusErrorCode } from '../../../core/errors.ts';
import type { Weights } from '../../../native/model/weights.ts';
import {
  decodeSafetensors,
  encodeSafetensors,
  readSafetensors,
  readSafetensorsHeader,
  writeSafetensors,
} from '../../../native/io/safetensors.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ludus-safetensors-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

let fileCounter = 0;
const freshPath = () => join(dir, `t${++fileCounter}.safetensors`);

/** A safetensors file assembled by hand, so headers can be made wrong on purpose. */
function rawSafetensors(header: unknown, data: Uint8Array = new Uint8Array(0), headerLength?: bigint): Uint8Array {
  const json = Buffer.from(typeof header === 'string' ? header : JSON.stringify(header));
  const out = Buffer.alloc(8 + json.length + data.length);
  out.writeBigUInt64LE(headerLength ?? BigInt(json.length), 0);
  json.copy(out, 8);
  out.set(data, 8 + json.length);
  return out;
}

const bytesOf = (array: ArrayBufferView) => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
const bitsAsF32 = (bits: number[]) => [...new Float32Array(Uint32Array.from(bits).buffer)];

async function failureOf(promise: Promise<unknown>): Promise<LudusError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(LudusError);
  return error as LudusError;
}

async function expectReadFailure(bytes: Uint8Array, code: LudusErrorCode, mentions: string[] = []): Promise<void> {
  const path = freshPath();
  await writeFile(path, bytes);
  const error = await failureOf(readSafetensors(path));
  expect(error.code).toBe(code);
  expect(error.message).toContain(path);
  for (const text of mentions) expect(error.message).toContain(text);
}

async function storedBits(values: number[], dtype: 'F16' | 'BF16'): Promise<number[]> {
  const bytes = encodeSafetensors(new Map([['x', { dims: [values.length], data: Float32Array.from(values) }]]), { dtype });
  const dataStart = 8 + Number(new DataView(bytes.buffer).getBigUint64(0, true));
  return [...new Uint16Array(bytes.slice(dataStart).buffer)];
}

function readBackOf(bits: number[], dtype: 'F16' | 'BF16' | 'F64'): number[] {
  const data = dtype === 'F64' ? bytesOf(Float64Array.from(bits)) : bytesOf(Uint16Array.from(bits));
  const file = rawSafetensors({ x: { dtype, shape: [bits.length], data_offsets: [0, data.length] } }, data);
  return [...decodeSafetensors(file, 'memory').tensors.get('x')!.data];
}

const sampleWeights = (): Weights =>
  new Map([
    ['model.norm.weight', { dims: [3], data: Float32Array.from([1, -0, 2.5]) }],
    ['lm_head.weight', { dims: [2, 3], data: Float32Array.from([0.1, -0.2, 1e-38, 3.4e38, -Infinity, Math.PI]) }],
    ['scalar', { dims: [], data: Float32Array.from([7]) }],
    ['empty', { dims: [0, 4], data: new Float32Array(0) }],
  ]);

describe('writeSafetensors then readSafetensors', () => {
  describe('having F32 tensors, a scalar and an empty tensor', () => {
    it('should give back every tensor bit for bit with its shape', async () => {
      const path = freshPath();
      const weights = sampleWeights();
      await writeSafetensors(path, weights);
      const { tensors, metadata } = await readSafetensors(path);
      expect([...tensors.keys()].sort()).toEqual([...weights.keys()].sort());
      for (const [name, tensor] of weights) {
        expect(tensors.get(name)!.dims).toEqual(tensor.dims);
        expect(bytesOf(tensors.get(name)!.data)).toEqual(bytesOf(tensor.data));
      }
      expect(metadata).toEqual({ format: 'pt' });
    });

    it('should pad the header with spaces to a multiple of 8 and store tensors in name order', async () => {
      const path = freshPath();
      await writeSafetensors(path, sampleWeights(), { metadata: { note: 'ludus' } });
      const bytes = await readFile(path);
      const headerLength = Number(bytes.readBigUInt64LE(0));
      expect(headerLength % 8).toBe(0);
      const headerText = bytes.subarray(8, 8 + headerLength).toString('utf8');
      expect(headerText).toMatch(/} *$/);
      const header = JSON.parse(headerText);
      expect(header.__metadata__).toEqual({ note: 'ludus' });
      const byOffset = Object.keys(header)
        .filter((k) => k !== '__metadata__')
        .sort((a, b) => header[a].data_offsets[0] - header[b].data_offsets[0] || header[a].data_offsets[1] - header[b].data_offsets[1]);
      expect(byOffset).toEqual(['empty', 'lm_head.weight', 'model.norm.weight', 'scalar']);
      expect(header['lm_head.weight']).toEqual({ dtype: 'F32', shape: [2, 3], data_offsets: [0, 24] });
    });
  });

  describe('having a metadata map and a subset asked for', () => {
    it('should return only the included tensors and the metadata', async () => {
      const path = freshPath();
      await writeSafetensors(path, sampleWeights(), { metadata: { format: 'pt', step: '12' } });
      const { tensors, metadata } = await readSafetensors(path, { include: (name) => name === 'scalar' });
      expect([...tensors.keys()]).toEqual(['scalar']);
      expect(metadata).toEqual({ format: 'pt', step: '12' });
    });
  });

  describe('having BF16 storage', () => {
    it('should round to nearest even, keep signs and infinities and make NaN the canonical quiet NaN', async () => {
      const values = [1, -2, 1 / 3, ...bitsAsF32([0x3f808000, 0x3f818000, 0x000116c2]), 3.4028234e38, Infinity, -Infinity, NaN, -0];
      expect(await storedBits(values, 'BF16')).toEqual([0x3f80, 0xc000, 0x3eab, 0x3f80, 0x3f82, 0x0001, 0x7f80, 0x7f80, 0xff80, 0x7fc0, 0x8000]);
    });

    it('should read stored BF16 values back as the float32 values they denote', async () => {
      const read = readBackOf([0x3f80, 0xc000, 0x3eab, 0x0001, 0x7f80, 0xff80, 0x8000], 'BF16');
      expect(read.slice(0, 3)).toEqual([1, -2, 0.333984375]);
      expect(read[3]).toBe(2 ** -133);
      expect(read.slice(4, 6)).toEqual([Infinity, -Infinity]);
      expect(Object.is(read[6], -0)).toBe(true);
      expect(readBackOf([0x7fc0], 'BF16')[0]).toBeNaN();
    });

    it('should round-trip through a file to the BF16-rounded values', async () => {
      const path = freshPath();
      const data = Float32Array.from({ length: 1001 }, (_, i) => Math.sin(i) * 10 ** ((i % 9) - 4));
      await writeSafetensors(path, new Map([['w', { dims: [7, 143], data }]]), { dtype: 'BF16' });
      const back = (await readSafetensors(path)).tensors.get('w')!;
      expect(back.dims).toEqual([7, 143]);
      const backBits = new Uint32Array(back.data.buffer);
      const expected = await storedBits([...data], 'BF16');
      for (let i = 0; i < data.length; i++) expect(backBits[i]).toBe(expected[i] << 16 >>> 0);
      for (let i = 0; i < data.length; i++) expect(Math.abs(back.data[i] - data[i])).toBeLessThanOrEqual(Math.abs(data[i]) * 2 ** -8);
    });
  });

  describe('having F16 storage', () => {
    it('should round to nearest even into normals and subnormals, overflow to infinity and keep signs', async () => {
      const values = [1, -2, 0.1, 65504, 65520, 2 ** -14, 1e-7, 2 ** -24, 2 ** -25, 3 * 2 ** -26, 2 ** -26, Infinity, -Infinity, NaN, -0, -1e-7];
      expect(await storedBits(values, 'F16')).toEqual([
        0x3c00, 0xc000, 0x2e66, 0x7bff, 0x7c00, 0x0400, 0x0002, 0x0001, 0x0000, 0x0001, 0x0000, 0x7c00, 0xfc00, 0x7e00, 0x8000, 0x8002,
      ]);
    });

    it('should read stored F16 values back exactly, subnormals included', () => {
      const read = readBackOf([0x3c00, 0xc000, 0x3555, 0x7bff, 0x0001, 0x03ff, 0x0400, 0x7c00, 0xfc00, 0x8001], 'F16');
      expect(read).toEqual([1, -2, 0.333251953125, 65504, 2 ** -24, 1023 * 2 ** -24, 2 ** -14, Infinity, -Infinity, -(2 ** -24)]);
      expect(readBackOf([0x7e00], 'F16')[0]).toBeNaN();
    });
  });

  describe('having F64 storage written by another tool', () => {
    it('should read it narrowed to float32', () => {
      expect(readBackOf([1.5, -1e-3, 1e300], 'F64')).toEqual([1.5, Math.fround(-1e-3), Infinity]);
    });
  });
});

describe('encodeSafetensors then decodeSafetensors', () => {
  it('should produce the same bytes as writeSafetensors and decode them back', async () => {
    const path = freshPath();
    await writeSafetensors(path, sampleWeights(), { dtype: 'BF16' });
    const encoded = encodeSafetensors(sampleWeights(), { dtype: 'BF16' });
    expect(Buffer.from(encoded).equals(await readFile(path))).toBe(true);
    expect(decodeSafetensors(encoded, 'memory').tensors.get('model.norm.weight')!.data).toEqual(Float32Array.from([1, -0, 2.5]));
  });

  describe('having a tensor whose data length disagrees with its dims', () => {
    it('should fail with INPUT_INVALID naming the tensor', () => {
      const bad: Weights = new Map([['w', { dims: [2, 2], data: new Float32Array(3) }]]);
      expect(() => encodeSafetensors(bad)).toThrow(expect.objectContaining({ code: 'INPUT_INVALID', message: expect.stringContaining('"w"') }));
    });
  });
});

describe('readSafetensors', () => {
  const entry = (dtype: string, shape: number[], begin: number, end: number) => ({ dtype, shape, data_offsets: [begin, end] });

  describe('having a file shorter than 8 bytes', () => {
    it('should fail with SAFETENSORS_MALFORMED', () => expectReadFailure(new Uint8Array(5), 'SAFETENSORS_MALFORMED', ['shorter than']));
  });

  describe('having a header longer than the file', () => {
    it('should fail with SAFETENSORS_MALFORMED', () =>
      expectReadFailure(rawSafetensors({}, new Uint8Array(0), 1000n), 'SAFETENSORS_MALFORMED', ['header length in its first 8 bytes runs past the end']));
  });

  describe('having a header length beyond 64-bit safe integers', () => {
    it('should fail with SAFETENSORS_MALFORMED', () => expectReadFailure(rawSafetensors({}, new Uint8Array(0), 2n ** 63n), 'SAFETENSORS_MALFORMED'));
  });

  describe('having a header that is not valid JSON', () => {
    it('should fail with SAFETENSORS_MALFORMED', () => expectReadFailure(rawSafetensors('{"w": {"dtype": "F32",'), 'SAFETENSORS_MALFORMED', ['not valid JSON']));
  });

  describe('having a header that is not valid UTF-8', () => {
    it('should fail with SAFETENSORS_MALFORMED', () => {
      const bytes = rawSafetensors('{"w":1}  ');
      bytes[10] = 0xff;
      return expectReadFailure(bytes, 'SAFETENSORS_MALFORMED', ['UTF-8']);
    });
  });

  describe('having a header that is a JSON array', () => {
    it('should fail with SAFETENSORS_MALFORMED', () => expectReadFailure(rawSafetensors([]), 'SAFETENSORS_MALFORMED', ['not a JSON object']));
  });

  describe('having data_offsets past the end of the data', () => {
    it('should fail with SAFETENSORS_MALFORMED naming the tensor', () =>
      expectReadFailure(rawSafetensors({ w: entry('F32', [4], 0, 16) }, new Uint8Array(8)), 'SAFETENSORS_MALFORMED', ['"w"', 'run past']));
  });

  describe('having overlapping tensors', () => {
    it('should fail with SAFETENSORS_MALFORMED naming both tensors', () =>
      expectReadFailure(
        rawSafetensors({ a: entry('F32', [2], 0, 8), b: entry('F32', [2], 4, 12) }, new Uint8Array(12)),
        'SAFETENSORS_MALFORMED',
        ['"b"', 'overlap', '"a"'],
      ));
  });

  describe('having a gap between tensors', () => {
    it('should fail with SAFETENSORS_MALFORMED naming the tensor after the gap', () =>
      expectReadFailure(
        rawSafetensors({ a: entry('F32', [1], 0, 4), b: entry('F32', [1], 8, 12) }, new Uint8Array(12)),
        'SAFETENSORS_MALFORMED',
        ['"b"', 'gap'],
      ));
  });

  describe('having bytes after the last tensor', () => {
    it('should fail with SAFETENSORS_MALFORMED', () =>
      expectReadFailure(rawSafetensors({ a: entry('F32', [1], 0, 4) }, new Uint8Array(6)), 'SAFETENSORS_MALFORMED', ['cover 4 bytes']));
  });

  describe('having data_offsets that disagree with shape and dtype', () => {
    it('should fail with SAFETENSORS_MALFORMED naming the tensor', () =>
      expectReadFailure(rawSafetensors({ w: entry('BF16', [3], 0, 12) }, new Uint8Array(12)), 'SAFETENSORS_MALFORMED', ['"w"', 'needs 6']));
  });

  describe('having data_offsets with begin after end', () => {
    it('should fail with SAFETENSORS_MALFORMED naming the tensor', () =>
      expectReadFailure(rawSafetensors({ w: entry('F32', [1], 4, 0) }, new Uint8Array(4)), 'SAFETENSORS_MALFORMED', ['"w"']));
  });

  describe('having a shape with a negative dimension', () => {
    it('should fail with SAFETENSORS_MALFORMED naming the tensor', () =>
      expectReadFailure(rawSafetensors({ w: entry('F32', [-1], 0, 0) }), 'SAFETENSORS_MALFORMED', ['"w"', 'shape']));
  });

  describe('having a __metadata__ value that is not a string', () => {
    it('should fail with SAFETENSORS_MALFORMED', () =>
      expectReadFailure(rawSafetensors({ __metadata__: { step: 3 } }), 'SAFETENSORS_MALFORMED', ['__metadata__']));
  });

  describe('having a dtype the format does not define', () => {
    it('should fail with SAFETENSORS_DTYPE_UNSUPPORTED naming the tensor', () =>
      expectReadFailure(rawSafetensors({ w: entry('F128', [1], 0, 16) }, new Uint8Array(16)), 'SAFETENSORS_DTYPE_UNSUPPORTED', ['"w"', 'F128']));
  });

  describe('having an integer tensor', () => {
    const file = () => rawSafetensors({ ids: entry('I64', [2], 0, 16), w: entry('F32', [1], 16, 20) }, new Uint8Array(20));

    it('should fail with SAFETENSORS_DTYPE_UNSUPPORTED naming the tensor when it is read', () =>
      expectReadFailure(file(), 'SAFETENSORS_DTYPE_UNSUPPORTED', ['"ids"', 'I64']));

    it('should read the other tensors when it is not included', async () => {
      const path = freshPath();
      await writeFile(path, file());
      const { tensors } = await readSafetensors(path, { include: (name) => name !== 'ids' });
      expect([...tensors.keys()]).toEqual(['w']);
    });
  });

  describe('having no file at the path', () => {
    it('should fail with CHECKPOINT_MISSING_FILE naming the path', async () => {
      const path = join(dir, 'absent.safetensors');
      const error = await failureOf(readSafetensors(path));
      expect(error.code).toBe('CHECKPOINT_MISSING_FILE');
      expect(error.message).toContain(path);
    });
  });
});

describe('readSafetensorsHeader', () => {
  it('should list entries in data order with dtype, shape and byte ranges', async () => {
    const path = freshPath();
    await writeSafetensors(path, sampleWeights(), { dtype: 'F16' });
    const header = await readSafetensorsHeader(path);
    expect(header.dataStart % 8).toBe(0);
    expect(header.entries.map((e) => [e.name, e.dtype, e.shape, e.begin, e.end])).toEqual([
      ['empty', 'F16', [0, 4], 0, 0],
      ['lm_head.weight', 'F16', [2, 3], 0, 12],
      ['model.norm.weight', 'F16', [3], 12, 18],
      ['scalar', 'F16', [], 18, 20],
    ]);
  });
});

describe('decodeSafetensors', () => {
  it('should name the source it was given in errors', () => {
    expect(() => decodeSafetensors(new Uint8Array(3), 'upload #4')).toThrow(
      expect.objectContaining({ code: 'SAFETENSORS_MALFORMED', message: expect.stringContaining('upload #4') }),
    );
  });

  it('should decode F32 data that sits at an odd byte offset', () => {
    const data = bytesOf(Float32Array.from([1.25, -3]));
    const file = rawSafetensors('{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}} ', data);
    expect((file.length - data.length) % 4).not.toBe(0);
    expect([...decodeSafetensors(file, 'memory').tensors.get('w')!.data]).toEqual([1.25, -3]);
  });
});
