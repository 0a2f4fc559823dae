"""Pure-Python safetensors reader/writer over torch, and the Python side of ludus's interop tests.

No numpy, no `safetensors`, no `transformers`: the module tree below reproduces the state_dict names of
transformers' Qwen3/Qwen2/Llama ForCausalLM, so `load_state_dict(strict=True)` checks a ludus checkpoint the
way `from_pretrained` would (missing, unexpected or misshapen tensors all fail).

    python3 safetensors_io.py inspect DIR               load DIR into the module tree, print tensor checksums
    python3 safetensors_io.py write DIR DTYPE [SHARDS]  random weights for DIR/config.json, saved as DTYPE
    python3 safetensors_io.py narrow F32_FILE OUT_DIR   torch's F16/BF16 rounding of every tensor in F32_FILE
"""

import json
import os
import struct
import sys

import torch
from torch import nn

DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16, "F64": torch.float64}
NAMES = {dtype: name for name, dtype in DTYPES.items()}


def read_safetensors(path):
    """Returns ({name: tensor}, metadata) with tensors in their stored dtype."""
    with open(path, "rb") as f:
        blob = f.read()
    (length,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + length].decode("utf-8"))
    metadata = header.pop("__metadata__", {})
    data = blob[8 + length :]
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        dtype = DTYPES[entry["dtype"]]
        raw = bytearray(data[begin:end])
        flat = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        tensors[name] = flat.reshape(entry["shape"])
    return tensors, metadata


# The writer is the PyTorch worker's (ludus's own layout: sorted names, the header padded to 8 bytes).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "native", "torch", "python"))
from ludus_torch.safetensors import tensor_bytes, write_tensors as write_safetensors  # noqa: E402


class RMSNorm(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, head = c["hidden_size"], c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]
        q, kv = c["num_attention_heads"] * head, c.get("num_key_value_heads", c["num_attention_heads"]) * head
        qwen2 = c["model_type"] == "qwen2"
        qkv_bias = qwen2 or c.get("attention_bias", False)
        self.q_proj = nn.Linear(d, q, bias=qkv_bias)
        self.k_proj = nn.Linear(d, kv, bias=qkv_bias)
        self.v_proj = nn.Linear(d, kv, bias=qkv_bias)
        self.o_proj = nn.Linear(q, d, bias=not qwen2 and c.get("attention_bias", False))
        if c["model_type"] == "qwen3":
            self.q_norm = RMSNorm(head)
            self.k_norm = RMSNorm(head)


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, i, bias = c["hidden_size"], c["intermediate_size"], c.get("mlp_bias", False)
        self.gate_proj = nn.Linear(d, i, bias=bias)
        self.up_proj = nn.Linear(d, i, bias=bias)
        self.down_proj = nn.Linear(i, d, bias=bias)


class DecoderLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self_attn = Attention(c)
        self.mlp = MLP(c)
        self.input_layernorm = RMSNorm(c["hidden_size"])
        self.post_attention_layernorm = RMSNorm(c["hidden_size"])


class Model(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embed_tokens = nn.Embedding(c["vocab_size"], c["hidden_size"])
        self.layers = nn.ModuleList(DecoderLayer(c) for _ in range(c["num_hidden_layers"]))
        self.norm = RMSNorm(c["hidden_size"])


class ForCausalLM(nn.Module):
    """The module tree of transformers' *ForCausalLM; its state_dict keys are the checkpoint's tensor names."""

    def __init__(self, c):
        super().__init__()
        self.model = Model(c)
        self.lm_head = nn.Linear(c["hidden_size"], c["vocab_size"], bias=False)
        self.tied = c.get("tie_word_embeddings", False)
        if self.tied:
            self.lm_head.weight = self.model.embed_tokens.weight


def read_config(directory):
    with open(os.path.join(directory, "config.json")) as f:
        return json.load(f)


def read_checkpoint(directory):
    single = os.path.join(directory, "model.safetensors")
    if os.path.exists(single):
        return read_safetensors(single)[0]
    with open(os.path.join(directory, "model.safetensors.index.json")) as f:
        weight_map = json.load(f)["weight_map"]
    tensors = {}
    for shard in sorted(set(weight_map.values())):
        tensors.update(read_safetensors(os.path.join(directory, shard))[0])
    return tensors


def checksums(tensors):
    """Per tensor: dtype, shape, and two float64 sums of its float32 values (plain, and weighted by position mod 13)."""
    out = {}
    for name, tensor in tensors.items():
        flat = tensor.float().double().flatten()
        weights = (torch.arange(flat.numel(), dtype=torch.float64) % 13) + 1
        out[name] = {"dtype": NAMES[tensor.dtype], "shape": list(tensor.shape), "sum": flat.sum().item(), "weighted": (flat * weights).sum().item()}
    return out


def inspect(directory):
    config = read_config(directory)
    stored = read_checkpoint(directory)
    module = ForCausalLM(config)
    state = dict(stored)
    if module.tied and "lm_head.weight" not in state:
        state["lm_head.weight"] = state["model.embed_tokens.weight"]
    module.load_state_dict({k: v.float() for k, v in state.items()}, strict=True)
    return {"architecture": config.get("architectures", [None])[0], "state_dict": sorted(module.state_dict().keys()), "tensors": checksums(stored)}


def write(directory, dtype, shards=1):
    """Random weights for the config in DIRECTORY (tied lm_head left out, as save_pretrained does), saved as DTYPE."""
    config = read_config(directory)
    torch.manual_seed(0)
    module = ForCausalLM(config)
    state = {}
    for name, tensor in module.state_dict().items():
        if module.tied and name == "lm_head.weight":
            continue
        state[name] = (torch.randn(tensor.shape) * (0.5 if name.endswith("norm.weight") else 0.02)).to(DTYPES[dtype])
    names = sorted(state)
    if shards == 1:
        write_safetensors(os.path.join(directory, "model.safetensors"), state)
    else:
        weight_map = {}
        for i in range(shards):
            file = f"model-{i + 1:05d}-of-{shards:05d}.safetensors"
            part = {name: state[name] for name in names[i::shards]}
            write_safetensors(os.path.join(directory, file), part)
            weight_map.update({name: file for name in part})
        total = sum(t.numel() * t.element_size() for t in state.values())
        with open(os.path.join(directory, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2, sort_keys=True)
    return {"tensors": checksums(state)}


def narrow(f32_path, out_dir):
    """torch's own F16 and BF16 rounding of the F32 tensors, written for ludus to compare bit for bit."""
    tensors, _ = read_safetensors(f32_path)
    for dtype in ("F16", "BF16"):
        write_safetensors(os.path.join(out_dir, f"torch-{dtype}.safetensors"), {k: v.to(DTYPES[dtype]) for k, v in tensors.items()})
    return {"torch": torch.__version__}


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "inspect":
        result = inspect(args[0])
    elif command == "write":
        result = write(args[0], args[1], int(args[2]) if len(args) > 2 else 1)
    elif command == "narrow":
        result = narrow(args[0], args[1])
    else:
        sys.exit(f"unknown command {command!r}; see the module docstring")
    json.dump(result, sys.stdout)
