import { open, type FileHandle } from 'node:fs/promises';
import { fail } from '../../core/errors.ts';
import { jsonSyntaxProblem } from '../../core/json-syntax.ts';
import { tensorOf, type Weights, type WeightTensor } from '../model/weights.ts';
import { isMissingFileError, readInto, writeFileDurably } from './files.ts';
import { bf16BitsOf, expandHalfWidthInPlace, f16BitsOf } from './float-bits.ts';

/**
 * The safetensors format: an 8-byte little-endian u64 header length N, N bytes of JSON
 * `{name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__"?: {string: string}}`, then the raw
 * little-endian tensor bytes; offsets are relative to the end of the header. Host typed arrays are
 * assumed little-endian (every platform Node ships on).
 */

/** Bits per element of every dtype the format defines. Knowing them all lets a header be validated in full. */
const DTYPE_BITS: Readonly<Record<string, number>> = {
  BOOL: 8, U8: 8, I8: 8, F8_E5M2: 8, F8_E4M3: 8, F8_E8M0: 8, I16: 16, U16: 16, F16: 16, BF16: 16,
  I32: 32, U32: 32, F32: 32, F64: 64, I64: 64, U64: 64, C64: 64, F4: 4, F6_E2M3: 6, F6_E3M2: 6,
};
export type DecodableDtype = 'F64' | 'F32' | 'F16' | 'BF16';
export type EncodableDtype = 'F32' | 'F16' | 'BF16';
const DECODABLE: readonly string[] = ['F64', 'F32', 'F16', 'BF16'];

/** The reference implementation's cap on the JSON header. */
const MAX_HEADER_BYTES = 100_000_000;
const METADATA_KEY = '__metadata__';

export interface TensorEntry {
  name: string;
  dtype: string;
  shape: number[];
  /** Byte range within the data section (which starts at `SafetensorsHeader.dataStart`). */
  begin: number;
  end: number;
}

export interface SafetensorsHeader {
  /** Ordered by position in the data section. */
  entries: TensorEntry[];
  metadata: Record<string, string>;
  /** Absolute file offset of the data section: 8 + header length. */
  dataStart: number;
}

export interface SafetensorsContents {
  tensors: Weights;
  metadata: Record<string, string>;
}

export interface ReadOptions {
  /** Decode only the tensors this accepts; the rest are neither read nor checked for a decodable dtype. */
  include?: (name: string) => boolean;
}

/** Where a stored tensor comes from: a model's weight, or one of AdamW's moments of it (flattened, as checkpoints keep them). */
export interface StoredTensor {
  readonly kind: 'param' | 'm' | 'v';
  readonly name: string;
  readonly flat?: boolean;
}

/**
 * Tensors held elsewhere (a learner in another process), written on request: a safetensors file at `path` holding,
 * under each stored name, the tensor it maps to, laid out as writeSafetensors lays out a file.
 */
export interface TensorWriter {
  writeTensors(path: string, tensors: ReadonlyMap<string, StoredTensor>, options?: WriteOptions): Promise<void>;
}

/** The tensors a save writes: at hand, or written by their holder. */
export type SavedTensors = Weights | TensorWriter;

export const isTensorWriter = (tensors: SavedTensors): tensors is TensorWriter => !(tensors instanceof Map);

export interface WriteOptions {
  /** Storage dtype; values are rounded to nearest even. Default F32 (exact). */
  dtype?: EncodableDtype;
  /** Stored as `__metadata__`; default `{format: 'pt'}`, which transformers expects. */
  metadata?: Record<string, string>;
}

const malformed = (where: string, problem: string, tensor?: string): never =>
  fail('SAFETENSORS_MALFORMED', `${where}: ${tensor === undefined ? '' : `tensor "${tensor}": `}${problem}`, {
    file: where,
    ...(tensor === undefined ? {} : { tensor }),
  });

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** Reads the u64 header length from the first 8 bytes of a file of `fileSize` bytes. */
function headerLength(prefix: Uint8Array, fileSize: number, where: string): number {
  if (fileSize < 8) return malformed(where, `file is ${fileSize} bytes, shorter than the 8-byte header length`);
  const length = new DataView(prefix.buffer, prefix.byteOffset, 8).getBigUint64(0, true);
  // The length is the file's first 8 bytes: never quoted, since a file a request names may be anyone's.
  if (length > BigInt(MAX_HEADER_BYTES)) return malformed(where, `the header length in its first 8 bytes is over the ${MAX_HEADER_BYTES}-byte limit (not a safetensors file?)`);
  if (Number(length) > fileSize - 8) return malformed(where, `the header length in its first 8 bytes runs past the end of the ${fileSize}-byte file (not a safetensors file?)`);
  return Number(length);
}

function parseEntry(name: string, value: unknown, where: string): TensorEntry {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return malformed(where, 'entry is not an object', name);
  const { dtype, shape, data_offsets: offsets } = value as Record<string, unknown>;
  if (typeof dtype !== 'string') return malformed(where, 'dtype is missing or not a string', name);
  if (!(dtype in DTYPE_BITS)) {
    return fail('SAFETENSORS_DTYPE_UNSUPPORTED', `${where}: tensor "${name}": unknown dtype "${dtype}"`, { file: where, tensor: name, dtype });
  }
  if (!Array.isArray(shape) || !shape.every(isCount)) return malformed(where, `shape ${JSON.stringify(shape)} is not a list of non-negative integers`, name);
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every(isCount) || offsets[0] > offsets[1]) {
    return malformed(where, `data_offsets ${JSON.stringify(offsets)} is not a [begin, end] pair with begin <= end`, name);
  }
  const elements = shape.reduce((a: number, b: number) => a * b, 1);
  const bits = elements * DTYPE_BITS[dtype];
  if (!Number.isSafeInteger(bits) || bits % 8 !== 0) return malformed(where, `shape [${shape}] of ${dtype} does not fill whole bytes`, name);
  if (offsets[1] - offsets[0] !== bits / 8) {
    return malformed(where, `data_offsets [${offsets}] span ${offsets[1] - offsets[0]} bytes but shape [${shape}] of ${dtype} needs ${bits / 8}`, name);
  }
  return { name, dtype, shape: [...shape], begin: offsets[0], end: offsets[1] };
}

function parseMetadata(value: unknown, where: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value) || !Object.values(value).every((v) => typeof v === 'string')) {
    return malformed(where, `${METADATA_KEY} must map strings to strings`);
  }
  return { ...(value as Record<string, string>) };
}

/** Validates the JSON header against a data section of `dataBytes` bytes: the tensors must tile it exactly. */
function parseHeader(json: Uint8Array, dataBytes: number, where: string): SafetensorsHeader {
  let text: string;
  let parsed: unknown;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(json);
  } catch {
    return malformed(where, 'header is not valid UTF-8');
  }
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return malformed(where, `header is not valid JSON (${jsonSyntaxProblem(error)})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return malformed(where, 'header is not a JSON object');
  const record = parsed as Record<string, unknown>;
  const entries = Object.keys(record)
    .filter((name) => name !== METADATA_KEY)
    .map((name) => parseEntry(name, record[name], where))
    .sort((a, b) => a.begin - b.begin || a.end - b.end);
  let covered = 0;
  let previous: string | undefined;
  for (const entry of entries) {
    if (entry.end > dataBytes) return malformed(where, `data_offsets [${entry.begin},${entry.end}] run past the ${dataBytes}-byte data section`, entry.name);
    if (entry.begin < covered) return malformed(where, `data_offsets [${entry.begin},${entry.end}] overlap tensor "${previous}"`, entry.name);
    if (entry.begin > covered) return malformed(where, `data_offsets [${entry.begin},${entry.end}] leave a gap after byte ${covered}`, entry.name);
    covered = entry.end;
    previous = entry.name;
  }
  if (covered !== dataBytes) return malformed(where, `tensors cover ${covered} bytes but the data section holds ${dataBytes}`);
  return { entries, metadata: parseMetadata(record[METADATA_KEY], where), dataStart: 8 + json.length };
}

const elementCount = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);

/**
 * Allocates the float32 result for one stored tensor and tells where its raw bytes must be put; `finish`
 * converts them in place. F16/BF16 bytes land in the upper half of the result and are widened forward.
 */
function decodeTarget(entry: TensorEntry, where: string): { tensor: WeightTensor; raw: Uint8Array; finish: () => void } {
  if (!DECODABLE.includes(entry.dtype)) {
    return fail('SAFETENSORS_DTYPE_UNSUPPORTED', `${where}: tensor "${entry.name}": dtype ${entry.dtype} cannot be read as floats (supported: ${DECODABLE.join(', ')})`, {
      file: where,
      tensor: entry.name,
      dtype: entry.dtype,
    });
  }
  const count = elementCount(entry.shape);
  const data = new Float32Array(count);
  const tensor = { dims: [...entry.shape], data };
  const dtype = entry.dtype as DecodableDtype;
  if (dtype === 'F32') return { tensor, raw: new Uint8Array(data.buffer), finish: () => undefined };
  if (dtype === 'F64') {
    const wide = new Float64Array(count);
    return { tensor, raw: new Uint8Array(wide.buffer), finish: () => data.set(wide) };
  }
  return { tensor, raw: new Uint8Array(data.buffer, 2 * count, 2 * count), finish: () => expandHalfWidthInPlace(data, dtype) };
}

const selectEntries = (header: SafetensorsHeader, include: ReadOptions['include']): TensorEntry[] =>
  include ? header.entries.filter((entry) => include(entry.name)) : header.entries;

/** Decodes a whole safetensors file held in memory; `where` names it in errors. */
export function decodeSafetensors(bytes: Uint8Array, where: string, options: ReadOptions = {}): SafetensorsContents {
  const length = headerLength(bytes, bytes.length, where);
  const header = parseHeader(bytes.subarray(8, 8 + length), bytes.length - 8 - length, where);
  const tensors: Weights = new Map();
  for (const entry of selectEntries(header, options.include)) {
    const target = decodeTarget(entry, where);
    target.raw.set(bytes.subarray(header.dataStart + entry.begin, header.dataStart + entry.end));
    target.finish();
    tensors.set(entry.name, target.tensor);
  }
  return { tensors, metadata: header.metadata };
}

async function openForReading(path: string): Promise<FileHandle> {
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if (isMissingFileError(error)) return fail('CHECKPOINT_MISSING_FILE', `${path}: file not found`, { file: path });
    throw error;
  }
  if (!(await file.stat()).isFile()) {
    await file.close();
    fail('SAFETENSORS_MALFORMED', `${path}: not a file (a directory?); expected a safetensors file`, { file: path });
  }
  return file;
}

async function readHeaderFrom(file: FileHandle, path: string): Promise<SafetensorsHeader> {
  const { size } = await file.stat();
  const prefix = new Uint8Array(8);
  await readInto(file, prefix, 0);
  const length = headerLength(prefix, size, path);
  const json = new Uint8Array(length);
  await readInto(file, json, 8);
  return parseHeader(json, size - 8 - length, path);
}

export async function readSafetensorsHeader(path: string): Promise<SafetensorsHeader> {
  const file = await openForReading(path);
  try {
    return await readHeaderFrom(file, path);
  } finally {
    await file.close();
  }
}

/** Reads a safetensors file as float32 tensors: one positional read per tensor, straight into its result array. */
export async function readSafetensors(path: string, options: ReadOptions = {}): Promise<SafetensorsContents> {
  const file = await openForReading(path);
  try {
    const header = await readHeaderFrom(file, path);
    const selected = selectEntries(header, options.include);
    const targets = selected.map((entry) => decodeTarget(entry, path));
    const tensors: Weights = new Map();
    for (let i = 0; i < selected.length; i++) {
      const got = await readInto(file, targets[i].raw, header.dataStart + selected[i].begin);
      if (got !== targets[i].raw.length) malformed(path, 'file ended while reading (truncated during read?)', selected[i].name);
      targets[i].finish();
      tensors.set(selected[i].name, targets[i].tensor);
    }
    return { tensors, metadata: header.metadata };
  } finally {
    await file.close();
  }
}

/** Stored bytes of one tensor: a zero-copy view for F32, a rounded copy otherwise. */
function encodeData(tensor: WeightTensor, dtype: EncodableDtype): Uint8Array {
  const { data } = tensor;
  if (dtype === 'F32') return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const bits = dtype === 'BF16' ? bf16BitsOf(data) : f16BitsOf(data);
  return new Uint8Array(bits.buffer);
}

const BYTES_PER_ELEMENT: Record<EncodableDtype, number> = { F32: 4, F16: 2, BF16: 2 };

/** Stored size in bytes of a tensor of `dims` in `dtype`. */
export const storedBytes = (dims: readonly number[], dtype: EncodableDtype): number => elementCount(dims) * BYTES_PER_ELEMENT[dtype];

/** The header bytes, padded with spaces to a multiple of 8 as the reference writer does, and the tensor order. */
function layout(tensors: Weights, options: WriteOptions): { header: Uint8Array; names: string[] } {
  const dtype = options.dtype ?? 'F32';
  if (!(dtype in BYTES_PER_ELEMENT)) fail('SAFETENSORS_DTYPE_UNSUPPORTED', `cannot write dtype "${dtype}" (supported: ${Object.keys(BYTES_PER_ELEMENT).join(', ')})`);
  const names = [...tensors.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (names.includes(METADATA_KEY)) fail('INPUT_INVALID', `"${METADATA_KEY}" cannot be a tensor name`);
  const json: Record<string, unknown> = { [METADATA_KEY]: options.metadata ?? { format: 'pt' } };
  let offset = 0;
  for (const name of names) {
    const { dims, data } = tensorOf(tensors, name);
    if (data.length !== elementCount(dims)) {
      fail('INPUT_INVALID', `tensor "${name}" holds ${data.length} values but its dims [${dims}] imply ${elementCount(dims)}`, { tensor: name });
    }
    const size = storedBytes(dims, dtype);
    json[name] = { dtype, shape: dims, data_offsets: [offset, offset + size] };
    offset += size;
  }
  const text = JSON.stringify(json);
  const padded = Buffer.alloc(8 + Math.ceil(Buffer.byteLength(text) / 8) * 8, ' ');
  padded.writeBigUInt64LE(BigInt(padded.length - 8), 0);
  padded.write(text, 8, 'utf8');
  return { header: padded, names };
}

/** Encodes tensors (sorted by name, as the Python library writes them) into one in-memory safetensors file. */
export function encodeSafetensors(tensors: Weights, options: WriteOptions = {}): Uint8Array {
  const { header, names } = layout(tensors, options);
  const parts = names.map((name) => encodeData(tensorOf(tensors, name), options.dtype ?? 'F32'));
  const out = new Uint8Array(header.length + parts.reduce((sum, part) => sum + part.length, 0));
  out.set(header, 0);
  let offset = header.length;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Writes tensors to `path` one at a time (F32 without copying) and fsyncs the file. */
export async function writeSafetensors(path: string, tensors: Weights, options: WriteOptions = {}): Promise<void> {
  const { header, names } = layout(tensors, options);
  await writeFileDurably(path, async (write) => {
    await write(header);
    for (const name of names) await write(encodeData(tensorOf(tensors, name), options.dtype ?? 'F32'));
  });
}
