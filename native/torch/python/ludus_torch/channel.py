"""The door's channel to rank 0: one Unix socket connection, messages framed as a 4-byte little-endian length, a JSON
header whose `blobs` lists the byte lengths of the binary parts that follow it (tensors as raw little-endian bytes)."""

import json
import struct

MAX_HEADER = 64 * 1024 * 1024


def _exactly(conn, n):
    parts, left = [], n
    while left > 0:
        chunk = conn.recv(min(left, 1 << 22))
        if not chunk:
            return None
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def receive(conn):
    """(header, [bytes]) of the next message, or None when the door has closed the connection."""
    prefix = _exactly(conn, 4)
    if prefix is None:
        return None
    (length,) = struct.unpack("<I", prefix)
    if length > MAX_HEADER:
        raise ValueError(f"a message header of {length} bytes")
    raw = _exactly(conn, length)
    if raw is None:
        return None
    header = json.loads(raw.decode("utf-8"))
    blobs = []
    for size in header.get("blobs", []):
        blob = _exactly(conn, size)
        if blob is None:
            return None
        blobs.append(blob)
    return header, blobs


def send(conn, header, blobs=()):
    blobs = list(blobs)
    text = json.dumps({**header, "blobs": [len(b) for b in blobs]}, separators=(",", ":"), allow_nan=True).encode("utf-8")
    conn.sendall(struct.pack("<I", len(text)) + text)
    for blob in blobs:
        conn.sendall(blob)
