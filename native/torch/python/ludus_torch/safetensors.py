"""safetensors files read and written with torch alone, in the layout ludus writes (native/io/safetensors.ts): tensors
sorted by name, the header's `__metadata__` first, the header padded with spaces to a multiple of 8 bytes."""

import ctypes
import json
import os
import struct

import torch

from . import WorkerError

_STORED = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
_CODES = {dtype: code for code, dtype in _STORED.items()}


def read_header(path):
    """(header without __metadata__, metadata, offset of the data) of the file at `path`."""
    try:
        with open(path, "rb") as f:
            prefix = f.read(8)
            if len(prefix) != 8:
                raise WorkerError("SAFETENSORS_MALFORMED", f"{path}: shorter than a safetensors header")
            (length,) = struct.unpack("<Q", prefix)
            if length > 100_000_000 or length > os.fstat(f.fileno()).st_size - 8:
                raise WorkerError("SAFETENSORS_MALFORMED", f"{path}: the header length does not fit the file")
            header = json.loads(f.read(length).decode("utf-8"))
    except FileNotFoundError:
        raise WorkerError("CHECKPOINT_MISSING_FILE", f"{path}: file not found") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise WorkerError("SAFETENSORS_MALFORMED", f"{path}: the header is not JSON") from None
    if not isinstance(header, dict):
        raise WorkerError("SAFETENSORS_MALFORMED", f"{path}: the header is not a JSON object")
    metadata = header.pop("__metadata__", {}) or {}
    return header, metadata, 8 + length


def read_tensors(path, names=None):
    """{name: float32 tensor} of the file (those in `names` only, when given), each read on its own; BF16, F16 and
    F64 are converted to float32 as ludus's reader does."""
    header, metadata, start = read_header(path)
    wanted = header.keys() if names is None else names
    out = {}
    with open(path, "rb") as f:
        for name in wanted:
            entry = header.get(name)
            if entry is None:
                raise WorkerError("CHECKPOINT_TENSOR_MISSING", f"{path}: no tensor \"{name}\"")
            dtype = _STORED.get(entry.get("dtype"))
            if dtype is None:
                raise WorkerError("SAFETENSORS_DTYPE_UNSUPPORTED", f"{path}: tensor \"{name}\" has dtype {entry.get('dtype')!r}")
            begin, end = entry["data_offsets"]
            f.seek(start + begin)
            raw = bytearray(f.read(end - begin))
            if len(raw) != end - begin:
                raise WorkerError("SAFETENSORS_MALFORMED", f"{path}: tensor \"{name}\" runs past the end of the file")
            flat = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
            out[name] = flat.to(torch.float32).reshape(entry["shape"])
    return out, metadata


def tensor_bytes(tensor):
    tensor = tensor.detach().to("cpu").contiguous()
    return ctypes.string_at(tensor.data_ptr(), tensor.numel() * tensor.element_size())


def write_tensors(path, tensors, metadata=None):
    """Writes {name: tensor} at `path`, each in its own dtype, sorted by name, and fsyncs it."""
    header = {"__metadata__": metadata if metadata is not None else {"format": "pt"}}
    names = sorted(tensors)
    offset = 0
    for name in names:
        t = tensors[name]
        size = t.numel() * t.element_size()
        header[name] = {"dtype": _CODES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name in names:
            f.write(tensor_bytes(tensors[name]))
        f.flush()
        os.fsync(f.fileno())
