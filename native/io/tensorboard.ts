import { appendFile, readdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * TensorBoard's event files, written by hand: no npm package writes them without TensorFlow, and the format is small.
 * A file is a sequence of TFRecords (length as uint64 LE, its masked CRC-32C, the bytes, their masked CRC-32C), each
 * one `Event` protocol buffer (tensorflow/core/util/event.proto): wall_time = 1 (double), step = 2 (int64),
 * file_version = 3 (string), summary = 5 (Summary: repeated Value = 1 with tag = 1 and simple_value = 2, a float),
 * session_log = 6 (SessionLog: status = 1, START = 1).
 */

export const EVENT_FILE_PREFIX = 'events.out.tfevents.';

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32C (Castagnoli), the checksum TFRecord uses. */
export function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC32C_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** TFRecord's masked CRC: rotated right by 15 bits plus a constant, so a CRC of CRCs does not degenerate. */
export function maskedCrc32c(bytes: Uint8Array): number {
  const crc = crc32c(bytes);
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}

/** Protocol-buffer fields, appended to a byte list. */
class ProtoWriter {
  readonly bytes: number[] = [];

  private varint(value: number): void {
    let v = value;
    while (v >= 0x80) {
      this.bytes.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    this.bytes.push(v);
  }

  private key(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  int64(field: number, value: number): this {
    this.key(field, 0);
    this.varint(value);
    return this;
  }

  /** A fixed-width little-endian field: wire type 1 (8 bytes) or 5 (4 bytes). */
  private fixed(field: number, wireType: 1 | 5, write: (view: DataView) => void): this {
    this.key(field, wireType);
    const view = new DataView(new ArrayBuffer(wireType === 1 ? 8 : 4));
    write(view);
    this.bytes.push(...new Uint8Array(view.buffer));
    return this;
  }

  double(field: number, value: number): this {
    return this.fixed(field, 1, (view) => view.setFloat64(0, value, true));
  }

  float(field: number, value: number): this {
    return this.fixed(field, 5, (view) => view.setFloat32(0, value, true));
  }

  message(field: number, body: Uint8Array | readonly number[]): this {
    this.key(field, 2);
    this.varint(body.length);
    this.bytes.push(...body);
    return this;
  }

  string(field: number, text: string): this {
    return this.message(field, new TextEncoder().encode(text));
  }
}

/** One TFRecord around `data`. */
export function tfRecord(data: Uint8Array): Uint8Array {
  const header = new Uint8Array(12);
  const view = new DataView(header.buffer);
  view.setBigUint64(0, BigInt(data.length), true);
  view.setUint32(8, maskedCrc32c(header.subarray(0, 8)), true);
  const record = new Uint8Array(12 + data.length + 4);
  record.set(header);
  record.set(data, 12);
  new DataView(record.buffer).setUint32(12 + data.length, maskedCrc32c(data), true);
  return record;
}

const event = (wallTime: number, step: number, fill: (writer: ProtoWriter) => void): Uint8Array => {
  const writer = new ProtoWriter().double(1, wallTime).int64(2, step);
  fill(writer);
  return tfRecord(Uint8Array.from(writer.bytes));
};

/** The first event of every file: its format version. */
export function fileVersionEvent(wallTime: number): Uint8Array {
  return event(wallTime, 0, (w) => w.string(3, 'brain.Event:2'));
}

/** Scalars at one step, one Summary.Value each (non-finite values are left out). */
export function scalarsEvent(wallTime: number, step: number, scalars: Readonly<Record<string, number>>): Uint8Array {
  const summary = new ProtoWriter();
  for (const [tag, value] of Object.entries(scalars)) {
    if (Number.isFinite(value)) summary.message(1, new ProtoWriter().string(1, tag).float(2, value).bytes);
  }
  return event(wallTime, step, (w) => w.message(5, summary.bytes));
}

/** A session (re)start at `step`: TensorBoard drops what an earlier file logged after it (a resumed run's lost steps). */
export function sessionStartEvent(wallTime: number, step: number): Uint8Array {
  return event(wallTime, step, (w) => w.message(6, new ProtoWriter().int64(1, 1).bytes));
}

/**
 * A run directory's TensorBoard log (`tensorboard --logdir runs/`): one new event file per process that works on the
 * run, named as TensorFlow names them. A run started over drops the files of the attempt before; a resumed one marks
 * its restart step so the steps logged after the checkpoint by the lost attempt are purged.
 */
export class TensorBoardLog {
  private constructor(readonly file: string) {}

  static async open(dir: string, options: { startOver: boolean; step: number; now?: () => number }): Promise<TensorBoardLog> {
    const now = options.now ?? Date.now;
    if (options.startOver) {
      for (const name of await readdir(dir)) if (name.startsWith(EVENT_FILE_PREFIX)) await rm(join(dir, name), { force: true });
    }
    const seconds = now() / 1000;
    const log = new TensorBoardLog(join(dir, `${EVENT_FILE_PREFIX}${Math.floor(seconds)}.${hostname()}.${process.pid}.ludus`));
    await appendFile(log.file, fileVersionEvent(seconds));
    if (!options.startOver) await appendFile(log.file, sessionStartEvent(seconds, options.step));
    return log;
  }

  async scalars(step: number, scalars: Readonly<Record<string, number>>, wallTime = Date.now() / 1000): Promise<void> {
    await appendFile(this.file, scalarsEvent(wallTime, step, scalars));
  }
}
