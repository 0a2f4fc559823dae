import { readFile } from 'node:fs/promises';
import protobuf from 'protobufjs';
import { maskedCrc32c } from '../../native/io/tensorboard.ts';

/**
 * A reader of TensorBoard event files that shares nothing with ludus's writer but the CRC: the TFRecord framing is
 * walked here, and each Event is decoded by protobufjs from TensorBoard's own message definitions (event.proto and
 * summary.proto, the fields ludus writes).
 */
const root = protobuf.parse(`
  syntax = "proto3";
  package tensorflow;
  message SummaryMetadata { string display_name = 2; }
  message Summary {
    message Value {
      string node_name = 7;
      string tag = 1;
      SummaryMetadata metadata = 9;
      oneof value { float simple_value = 2; bytes obsolete_old_style_histogram = 3; }
    }
    repeated Value value = 1;
  }
  message SessionLog {
    enum SessionStatus { STATUS_UNSPECIFIED = 0; START = 1; STOP = 2; CHECKPOINT = 3; }
    SessionStatus status = 1;
    string checkpoint_path = 2;
    string msg = 3;
  }
  message Event {
    double wall_time = 1;
    int64 step = 2;
    oneof what { string file_version = 3; bytes graph_def = 4; Summary summary = 5; SessionLog session_log = 6; }
  }
`).root;
const EventType = root.lookupType('tensorflow.Event');

export interface ReadEvent {
  wallTime: number;
  step: number;
  fileVersion?: string;
  scalars?: Record<string, number>;
  sessionStatus?: number;
}

export async function readEventFile(path: string): Promise<ReadEvent[]> {
  const bytes = new Uint8Array(await readFile(path));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const events: ReadEvent[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const length = Number(view.getBigUint64(offset, true));
    if (view.getUint32(offset + 8, true) !== maskedCrc32c(bytes.subarray(offset, offset + 8))) throw new Error(`${path}: bad length CRC at ${offset}`);
    const data = bytes.subarray(offset + 12, offset + 12 + length);
    if (view.getUint32(offset + 12 + length, true) !== maskedCrc32c(data)) throw new Error(`${path}: bad data CRC at ${offset}`);
    const decoded = EventType.toObject(EventType.decode(data), { longs: Number, enums: Number }) as {
      wallTime: number;
      step?: number;
      fileVersion?: string;
      summary?: { value?: { tag: string; simpleValue: number }[] };
      sessionLog?: { status?: number };
    };
    events.push({
      wallTime: decoded.wallTime,
      step: decoded.step ?? 0,
      ...(decoded.fileVersion !== undefined ? { fileVersion: decoded.fileVersion } : {}),
      ...(decoded.summary ? { scalars: Object.fromEntries((decoded.summary.value ?? []).map((v) => [v.tag, v.simpleValue])) } : {}),
      ...(decoded.sessionLog ? { sessionStatus: decoded.sessionLog.status ?? 0 } : {}),
    });
    offset += 12 + length + 4;
  }
  return events;
}
