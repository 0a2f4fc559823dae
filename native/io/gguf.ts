import { fail } from '../../core/errors.ts';
import { f16BitsOf } from './float-bits.ts';
import { writeFileAtomically, type WriteBytes } from './files.ts';

/**
 * GGUF, llama.cpp's model file (version 3): a header, typed metadata key/values, one info record per tensor, then the
 * tensors' bytes, each at an offset aligned to 32. Written in one streamed pass and swapped in whole.
 */

export type GgufValue =
  | { readonly type: 'uint32' | 'int32' | 'float32' | 'uint64'; readonly value: number }
  | { readonly type: 'bool'; readonly value: boolean }
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'strings'; readonly value: readonly string[] }
  | { readonly type: 'int32s'; readonly value: ArrayLike<number> };

export const gguf = {
  u32: (value: number): GgufValue => ({ type: 'uint32', value }),
  f32: (value: number): GgufValue => ({ type: 'float32', value }),
  bool: (value: boolean): GgufValue => ({ type: 'bool', value }),
  str: (value: string): GgufValue => ({ type: 'string', value }),
  strs: (value: readonly string[]): GgufValue => ({ type: 'strings', value }),
  i32s: (value: ArrayLike<number>): GgufValue => ({ type: 'int32s', value }),
};

/** The storage types written: ggml's F32 (0) and F16 (1). */
export type GgufTensorType = 'F32' | 'F16';

export interface GgufTensor {
  readonly name: string;
  /** Row-major, outermost first, as in safetensors; GGUF stores them innermost first. */
  readonly dims: readonly number[];
  readonly type: GgufTensorType;
  readonly data: Float32Array;
}

const MAGIC = 0x46554747; // "GGUF" read as a little-endian u32
const VERSION = 3;
export const GGUF_ALIGNMENT = 32;
const VALUE_TYPE = { uint32: 4, int32: 5, float32: 6, bool: 7, string: 8, array: 9, uint64: 10 } as const;
const TENSOR_TYPE: Record<GgufTensorType, number> = { F32: 0, F16: 1 };
const F16_MAX = 65504;

/** Little-endian bytes, grown as they are appended: the header and metadata, which are small next to the tensors. */
class Bytes {
  private buffer = Buffer.alloc(1 << 16);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buffer.length) return;
    const grown = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + n));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  u32(v: number): void {
    this.room(4);
    this.buffer.writeUInt32LE(v >>> 0, this.length);
    this.length += 4;
  }

  i32(v: number): void {
    this.room(4);
    this.buffer.writeInt32LE(v, this.length);
    this.length += 4;
  }

  u64(v: number): void {
    this.room(8);
    this.buffer.writeBigUInt64LE(BigInt(v), this.length);
    this.length += 8;
  }

  f32(v: number): void {
    this.room(4);
    this.buffer.writeFloatLE(v, this.length);
    this.length += 4;
  }

  u8(v: number): void {
    this.room(1);
    this.buffer[this.length++] = v;
  }

  str(s: string): void {
    const encoded = Buffer.from(s, 'utf8');
    this.u64(encoded.length);
    this.room(encoded.length);
    encoded.copy(this.buffer, this.length);
    this.length += encoded.length;
  }

  pad(alignment: number): void {
    while (this.length % alignment !== 0) this.u8(0);
  }

  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}

function writeValue(out: Bytes, value: GgufValue): void {
  switch (value.type) {
    case 'uint32':
    case 'int32':
    case 'float32':
    case 'uint64':
      out.u32(VALUE_TYPE[value.type]);
      if (value.type === 'uint32') out.u32(value.value);
      else if (value.type === 'int32') out.i32(value.value);
      else if (value.type === 'float32') out.f32(value.value);
      else out.u64(value.value);
      return;
    case 'bool':
      out.u32(VALUE_TYPE.bool);
      out.u8(value.value ? 1 : 0);
      return;
    case 'string':
      out.u32(VALUE_TYPE.string);
      out.str(value.value);
      return;
    case 'strings':
      out.u32(VALUE_TYPE.array);
      out.u32(VALUE_TYPE.string);
      out.u64(value.value.length);
      for (const s of value.value) out.str(s);
      return;
    case 'int32s':
      out.u32(VALUE_TYPE.array);
      out.u32(VALUE_TYPE.int32);
      out.u64(value.value.length);
      for (let i = 0; i < value.value.length; i++) out.i32(value.value[i]);
      return;
  }
}

const tensorBytes = (t: GgufTensor): number => t.data.length * (t.type === 'F32' ? 4 : 2);
const aligned = (n: number): number => Math.ceil(n / GGUF_ALIGNMENT) * GGUF_ALIGNMENT;

/** F16 cannot hold a value past ±65504: refused, naming the tensor, rather than written as infinity. */
function checkF16Range(t: GgufTensor): void {
  for (let i = 0; i < t.data.length; i++) {
    if (Math.abs(t.data[i]) > F16_MAX) {
      fail('EXPORT_UNSUPPORTED', `tensor "${t.name}" holds ${t.data[i]} at index ${i}, beyond float16's range (±${F16_MAX}): export it as F32`, { tensor: t.name, index: i });
    }
  }
}

function encodeTensor(t: GgufTensor): Uint8Array {
  if (t.type === 'F32') return new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const bits = f16BitsOf(t.data);
  return new Uint8Array(bits.buffer, bits.byteOffset, bits.byteLength);
}

/** The header, metadata and tensor infos, padded to where the tensor data starts. */
export function ggufHead(metadata: ReadonlyArray<readonly [string, GgufValue]>, tensors: readonly GgufTensor[]): Uint8Array {
  const out = new Bytes();
  out.u32(MAGIC);
  out.u32(VERSION);
  out.u64(tensors.length);
  out.u64(metadata.length);
  for (const [key, value] of metadata) {
    out.str(key);
    writeValue(out, value);
  }
  let offset = 0;
  for (const t of tensors) {
    const count = t.dims.reduce((a, b) => a * b, 1);
    if (count !== t.data.length) fail('INTERNAL', `tensor "${t.name}" has shape [${t.dims}] but ${t.data.length} values (a defect of ludus; please report it)`);
    out.str(t.name);
    out.u32(t.dims.length);
    for (const d of [...t.dims].reverse()) out.u64(d);
    out.u32(TENSOR_TYPE[t.type]);
    out.u64(offset);
    offset = aligned(offset + tensorBytes(t));
  }
  out.pad(GGUF_ALIGNMENT);
  return out.bytes();
}

/** Writes a GGUF file at `path`, whole or not at all (a temp sibling renamed over it). */
export async function writeGguf(path: string, metadata: ReadonlyArray<readonly [string, GgufValue]>, tensors: readonly GgufTensor[]): Promise<void> {
  for (const t of tensors) if (t.type === 'F16') checkF16Range(t);
  const head = ggufHead(metadata, tensors);
  await writeFileAtomically(path, async (write: WriteBytes) => {
    await write(head);
    for (const t of tensors) {
      const bytes = encodeTensor(t);
      await write(bytes);
      const padding = aligned(bytes.length) - bytes.length;
      if (padding > 0) await write(new Uint8Array(padding));
    }
  });
}
