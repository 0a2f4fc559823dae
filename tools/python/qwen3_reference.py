#!/usr/bin/env python3
"""Self-contained PyTorch reference for ludus's learner: the Qwen3/Qwen2/Llama decoder written the way
transformers' Qwen3ForCausalLM computes it (eager attention), plus the same clipped policy-gradient and
SFT objectives. Needs only torch and numpy; safetensors files are parsed here.

  evaluate  --checkpoint DIR --request REQ.json --out OUT.safetensors|OUT.json [--dtype float64|float32]
      Loss, per-token logprobs / entropy / kl / clipped and the gradient of every weight, for the batch in
      REQ.json ({objective, rows, cols, input_ids, targets, weights, advantages?, old_logprobs?,
      ref_logprobs?, imitation_weights?, clip_low?, clip_high?, kl_beta?, entropy_coef?, temperature?}), written as a
      safetensors file (or, for a .json path, flat lists at full precision): loss, logprobs, entropy,
      kl, clipped, grad.<hf name>.
      With --adapter DIR (PEFT's layout: adapter_config.json + adapter_model.safetensors), the base is frozen, the
      targeted projections become W x + (lora_alpha / r) B A x, the adapter is loaded with load_state_dict(strict=True)
      into a module tree carrying PEFT's names (base_model.model.<projection>.lora_A.weight, ...), and the gradients
      written are the adapter's alone, under grad.<name without base_model.model.>.
  write-adapter --checkpoint DIR --out DIR [--r 4 --alpha 8 --targets q_proj,v_proj]
      A random adapter for the checkpoint's model in PEFT's layout, as save_pretrained writes it; prints {name: sum}.
  score     --checkpoint DIR --tokens FILE [--dtype float32|float64 --threads 2]
      log p(token_i | tokens_<i) of one sequence (FILE: comma-separated ids or a JSON list), printed as one JSON
      line {tokens, logprobs} with logprobs[0] null: what `ludus score --json` prints, for cross-checking it.
  bench     --config config.json [--rows 16 --cols 128 --threads 2 --steps 5]
      Forward + backward + AdamW on random weights and tokens; prints one JSON line with tokens/s.

One deliberate difference from transformers, a no-op in float32 and bfloat16: RMSNorm, the rotary tables
and the attention softmax compute in the wider of float32 and the model dtype (transformers always uses
float32), so a float64 run stays float64 end to end.
"""
import argparse
import json
import math
import os
import struct
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

# ---------------------------------------------------------------- safetensors

_NP_DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "I64": np.int64}


def read_safetensors(path):
    """Every tensor of a safetensors file, read through a memory map one tensor at a time (a 0.6B model's file is
    not held twice); BF16 is widened to float32 exactly."""
    with open(path, "rb") as f:
        (header_len,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(header_len))
    body = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + header_len)
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        start, end = entry["data_offsets"]
        dtype = entry["dtype"]
        if dtype == "BF16":
            bits = body[start:end].view(np.uint16).astype(np.uint32) << 16
            array = bits.view(np.float32)
        else:
            array = np.array(body[start:end]).view(_NP_DTYPES[dtype])
        tensors[name] = torch.from_numpy(array.reshape(entry["shape"]))
    del body
    return tensors


def write_safetensors(path, tensors):
    header, chunks, offset = {}, [], 0
    for name, tensor in tensors.items():
        array = tensor.detach().cpu().contiguous().numpy()
        code = {np.float64: "F64", np.float32: "F32"}[array.dtype.type]
        data = array.tobytes()
        header[name] = {"dtype": code, "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    encoded = json.dumps(header).encode()
    encoded += b" " * (-len(encoded) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(encoded)) + encoded + b"".join(chunks))


def read_checkpoint(directory):
    with open(os.path.join(directory, "config.json")) as f:
        config = json.load(f)
    index = os.path.join(directory, "model.safetensors.index.json")
    if os.path.exists(index):
        with open(index) as f:
            files = sorted(set(json.load(f)["weight_map"].values()))
    else:
        files = ["model.safetensors"]
    weights = {}
    for name in files:
        weights.update(read_safetensors(os.path.join(directory, name)))
    return config, weights


# ---------------------------------------------------------------- the model


class Arch:
    def __init__(self, c):
        self.model_type = c["model_type"]
        self.vocab_size = c["vocab_size"]
        self.hidden_size = c["hidden_size"]
        self.intermediate_size = c["intermediate_size"]
        self.num_layers = c["num_hidden_layers"]
        self.num_heads = c["num_attention_heads"]
        self.num_kv_heads = c.get("num_key_value_heads") or self.num_heads
        self.head_dim = c.get("head_dim") or self.hidden_size // self.num_heads
        self.eps = c.get("rms_norm_eps", 1e-6)
        self.rope_theta = c.get("rope_theta", 10000.0)
        self.tie = c.get("tie_word_embeddings", False)
        self.qk_norm = self.model_type == "qwen3"
        self.qkv_bias = self.model_type == "qwen2" or bool(c.get("attention_bias", False))
        self.o_bias = self.model_type != "qwen2" and bool(c.get("attention_bias", False))
        self.mlp_bias = bool(c.get("mlp_bias", False))


class RMSNorm(nn.Module):
    def __init__(self, size, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        h = x.to(torch.promote_types(dtype, torch.float32))
        variance = h.pow(2).mean(-1, keepdim=True)
        h = h * torch.rsqrt(variance + self.eps)
        return self.weight * h.to(dtype)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def rope_cos_sin(arch, seq_len, dtype):
    wide = torch.promote_types(dtype, torch.float32)
    inv_freq = 1.0 / (arch.rope_theta ** (torch.arange(0, arch.head_dim, 2, dtype=torch.int64).to(wide) / arch.head_dim))
    positions = torch.arange(seq_len, dtype=wide)
    freqs = positions[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


class Attention(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.a = a
        self.q_proj = nn.Linear(a.hidden_size, a.num_heads * a.head_dim, bias=a.qkv_bias)
        self.k_proj = nn.Linear(a.hidden_size, a.num_kv_heads * a.head_dim, bias=a.qkv_bias)
        self.v_proj = nn.Linear(a.hidden_size, a.num_kv_heads * a.head_dim, bias=a.qkv_bias)
        self.o_proj = nn.Linear(a.num_heads * a.head_dim, a.hidden_size, bias=a.o_bias)
        if a.qk_norm:
            self.q_norm = RMSNorm(a.head_dim, a.eps)
            self.k_norm = RMSNorm(a.head_dim, a.eps)

    def forward(self, x, cos, sin, mask, cache=None):
        a = self.a
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, -1, a.head_dim)
        k = self.k_proj(x).view(b, t, -1, a.head_dim)
        v = self.v_proj(x).view(b, t, -1, a.head_dim).transpose(1, 2)
        if a.qk_norm:
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = q.transpose(1, 2), k.transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if cache is not None:  # decoding: keys and values grow by torch.cat, as transformers' DynamicCache
            if "k" in cache:
                k, v = torch.cat((cache["k"], k), dim=2), torch.cat((cache["v"], v), dim=2)
            cache["k"], cache["v"] = k, v
        groups = a.num_heads // a.num_kv_heads
        k = k.repeat_interleave(groups, dim=1)  # transformers' repeat_kv
        v = v.repeat_interleave(groups, dim=1)
        scores = torch.matmul(q, k.transpose(2, 3)) * a.head_dim**-0.5 + mask
        probs = F.softmax(scores, dim=-1, dtype=torch.promote_types(q.dtype, torch.float32)).to(q.dtype)
        out = torch.matmul(probs, v).transpose(1, 2).reshape(b, t, -1)
        return self.o_proj(out)


class MLP(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.gate_proj = nn.Linear(a.hidden_size, a.intermediate_size, bias=a.mlp_bias)
        self.up_proj = nn.Linear(a.hidden_size, a.intermediate_size, bias=a.mlp_bias)
        self.down_proj = nn.Linear(a.intermediate_size, a.hidden_size, bias=a.mlp_bias)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.input_layernorm = RMSNorm(a.hidden_size, a.eps)
        self.self_attn = Attention(a)
        self.post_attention_layernorm = RMSNorm(a.hidden_size, a.eps)
        self.mlp = MLP(a)

    def forward(self, x, cos, sin, mask, cache=None):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, mask, cache)
        return x + self.mlp(self.post_attention_layernorm(x))


class Decoder(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.embed_tokens = nn.Embedding(a.vocab_size, a.hidden_size)
        self.layers = nn.ModuleList([Layer(a) for _ in range(a.num_layers)])
        self.norm = RMSNorm(a.hidden_size, a.eps)


class CausalLM(nn.Module):
    """Parameter names match Hugging Face's (model.layers.N.self_attn.q_proj.weight, ...)."""

    def __init__(self, a):
        super().__init__()
        self.a = a
        self.model = Decoder(a)
        if not a.tie:
            self.lm_head = nn.Linear(a.hidden_size, a.vocab_size, bias=False)

    def forward(self, input_ids, caches=None, start=0):
        """Logits for every position; with `caches` (one dict per layer) the tokens continue a cached prefix of `start`."""
        a = self.a
        dtype = self.model.embed_tokens.weight.dtype
        t = input_ids.shape[1]
        cos, sin = rope_cos_sin(a, start + t, dtype)
        cos, sin = cos[start:], sin[start:]
        mask = torch.full((t, start + t), torch.finfo(dtype).min, dtype=dtype).triu(start + 1)
        x = self.model.embed_tokens(input_ids)
        for i, layer in enumerate(self.model.layers):
            x = layer(x, cos, sin, mask, None if caches is None else caches[i])
        x = self.model.norm(x)
        head = self.model.embed_tokens.weight if a.tie else self.lm_head.weight
        return F.linear(x, head)


# ---------------------------------------------------------------- objectives


def objective_terms(logits, targets, weights, request, temperature):
    log_probs = F.log_softmax(logits / temperature, dim=-1)
    logprobs = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    entropy = -(log_probs.exp() * log_probs).sum(-1)
    out = {"logprobs": logprobs, "entropy": entropy}
    if request.get("objective", "policy-gradient") == "sft":
        out["loss"] = -(weights * logprobs).sum()
        return out
    old = request["old_logprobs"]
    ref = request["ref_logprobs"]
    adv = request["advantages"]
    ratio = torch.exp(logprobs - old)
    clipped_ratio = ratio.clamp(1 - request["clip_low"], 1 + request["clip_high"])
    unclipped, clipped = ratio * adv, clipped_ratio * adv
    kl = torch.exp(ref - logprobs) - (ref - logprobs) - 1
    per_token = -torch.min(unclipped, clipped) + request["kl_beta"] * kl - request["entropy_coef"] * entropy
    imitation = request.get("imitation_weights")
    loss = (weights * per_token).sum() - (0 if imitation is None else (imitation * logprobs).sum())
    out.update(loss=loss, kl=kl, clipped=(unclipped > clipped).to(logits.dtype))
    return out


def load_model(config, weights, dtype):
    model = CausalLM(Arch(config)).to(dtype)
    state = {name: tensor.to(dtype) for name, tensor in weights.items() if not name.endswith("rotary_emb.inv_freq")}
    if model.a.tie:
        state.pop("lm_head.weight", None)
    model.load_state_dict(state, strict=True)
    return model


class LoraLinear(nn.Module):
    """PEFT's LoRA Linear: the frozen base layer plus (alpha / r) * lora_B(lora_A(x)), dropout 0."""

    def __init__(self, base, lora_a, lora_b, scale):
        super().__init__()
        self.base_layer, self.lora_A, self.lora_B, self.scale = base, lora_a, lora_b, scale

    def forward(self, x):
        return self.base_layer(x) + self.lora_B(self.lora_A(x)) * self.scale


PEFT_PREFIX = "base_model.model."


def adapter_tree(model, r, targets):
    """Modules mirroring base_model.model.<path> for every targeted nn.Linear of `model`, each holding lora_A and
    lora_B Linears: the tree's state_dict keys are PEFT's saved names. Returns (tree, {path: holder})."""
    tree = nn.Module()
    wrapped = {}
    for path, module in list(model.named_modules()):
        leaf = path.rsplit(".", 1)[-1]
        if not isinstance(module, nn.Linear) or leaf not in targets:
            continue
        holder = tree
        for part in (PEFT_PREFIX + path).split("."):
            if not hasattr(holder, part):
                holder.add_module(part, nn.Module())
            holder = getattr(holder, part)
        holder.add_module("lora_A", nn.Linear(module.in_features, r, bias=False))
        holder.add_module("lora_B", nn.Linear(r, module.out_features, bias=False))
        wrapped[path] = holder
    return tree, wrapped


def attach_adapter(model, directory, dtype):
    """Loads a PEFT-layout adapter strictly into a module tree named as PEFT names it, and wraps the model's
    targeted projections with it. Returns {ludus name: parameter} of the adapter."""
    with open(os.path.join(directory, "adapter_config.json")) as f:
        adapter_config = json.load(f)
    r, scale = adapter_config["r"], adapter_config["lora_alpha"] / adapter_config["r"]
    tree, wrapped = adapter_tree(model, r, set(adapter_config["target_modules"]))
    stored = read_safetensors(os.path.join(directory, "adapter_model.safetensors"))
    tree.load_state_dict(stored, strict=True)
    tree.to(dtype)
    for path, holder in wrapped.items():
        parent_path, leaf = path.rsplit(".", 1)
        parent = model.get_submodule(parent_path)
        setattr(parent, leaf, LoraLinear(getattr(parent, leaf), holder.lora_A, holder.lora_B, scale))
    return {name[len(PEFT_PREFIX) :]: param for name, param in tree.named_parameters()}


def write_adapter(args):
    """A random float32 adapter for the checkpoint's model, written as PEFT's save_pretrained writes one; prints
    {name: sum} of its tensors."""
    config, weights = read_checkpoint(args.checkpoint)
    model = load_model(config, weights, torch.float32)
    targets = args.targets.split(",")
    torch.manual_seed(0)
    tree, _ = adapter_tree(model, args.r, set(targets))
    state = {name: torch.randn(t.shape) * 0.1 for name, t in tree.state_dict().items()}
    os.makedirs(args.out, exist_ok=True)
    write_safetensors(os.path.join(args.out, "adapter_model.safetensors"), state)
    peft_config = {
        "peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": args.checkpoint, "r": args.r, "lora_alpha": args.alpha,
        "lora_dropout": 0.05, "target_modules": targets, "bias": "none", "fan_in_fan_out": False, "use_rslora": False, "use_dora": False,
        "init_lora_weights": True, "inference_mode": True, "modules_to_save": None, "layers_to_transform": None, "layers_pattern": None,
        "rank_pattern": {}, "alpha_pattern": {}, "revision": None, "auto_mapping": None, "megatron_config": None, "megatron_core": "megatron.core",
    }
    with open(os.path.join(args.out, "adapter_config.json"), "w") as f:
        json.dump(peft_config, f, indent=2, sort_keys=True)
    json.dump({name: float(t.double().sum()) for name, t in state.items()}, sys.stdout)


def evaluate(args):
    dtype = getattr(torch, args.dtype)
    config, weights = read_checkpoint(args.checkpoint)
    with open(args.request) as f:
        request = json.load(f)
    model = load_model(config, weights, dtype)
    trained = dict(model.named_parameters())
    if args.adapter:
        for param in model.parameters():
            param.requires_grad_(False)
        trained = attach_adapter(model, args.adapter, dtype)
    rows, cols = request["rows"], request["cols"]
    as_tokens = lambda key: torch.tensor(request[key], dtype=torch.int64).view(rows, cols)
    as_floats = lambda key: torch.tensor(request[key], dtype=dtype).view(rows, cols)
    tensors = {key: as_floats(key) for key in ("weights", "advantages", "old_logprobs", "ref_logprobs", "imitation_weights") if key in request}
    knobs = {key: float(request.get(key, default)) for key, default in (("clip_low", 0.2), ("clip_high", 0.2), ("kl_beta", 0.0), ("entropy_coef", 0.0))}
    terms = objective_terms(
        model(as_tokens("input_ids")), as_tokens("targets"), tensors["weights"], {**request, **tensors, **knobs}, float(request.get("temperature", 1.0))
    )
    terms["loss"].backward()
    result = {name: value.detach() for name, value in terms.items()}
    result["loss"] = result["loss"].reshape(1)
    for name, param in trained.items():
        result["grad." + name] = param.grad
    if args.out.endswith(".json"):
        with open(args.out, "w") as f:
            json.dump({name: value.reshape(-1).tolist() for name, value in result.items()}, f)
    else:
        write_safetensors(args.out, result)


def score(args):
    """Teacher-forced log p(token_i | tokens_<i) of one sequence, as `ludus score --json` prints them."""
    torch.set_num_threads(args.threads)
    dtype = getattr(torch, args.dtype)
    config, weights = read_checkpoint(args.checkpoint)
    model = load_model(config, weights, dtype)
    del weights
    with open(args.tokens) as f:
        text = f.read().strip()
    tokens = json.loads(text) if text.startswith("[") else [int(t) for t in text.split(",")]
    with torch.no_grad():
        log_probs = F.log_softmax(model(torch.tensor([tokens], dtype=torch.int64)).to(torch.float64), dim=-1)[0]
    picked = [None] + [log_probs[t - 1, tokens[t]].item() for t in range(1, len(tokens))]
    print(json.dumps({"tokens": tokens, "logprobs": picked}))


# ---------------------------------------------------------------- benchmark


def timed_steps(step, steps, warmups=2):
    """Seconds of each of `steps` calls of `step`, after `warmups` untimed ones."""
    for _ in range(warmups):
        step()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return times


def bench(args):
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    with open(args.config) as f:
        config = json.load(f)
    model = CausalLM(Arch(config))
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.fill_(1.0)
            elif name.endswith(".bias"):
                p.zero_()
            else:
                p.normal_(0.0, 0.02)
    rows, cols, vocab = args.rows, args.cols, config["vocab_size"]
    input_ids = torch.randint(0, vocab, (rows, cols))
    targets = torch.randint(0, vocab, (rows, cols))
    weights = torch.full((rows, cols), 1.0 / (rows * cols))
    with torch.no_grad():
        old = F.log_softmax(model(input_ids), -1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    request = {
        "old_logprobs": old,
        "ref_logprobs": old,
        "advantages": torch.randn(rows, 1).expand(rows, cols),
        "clip_low": 0.2,
        "clip_high": 0.2,
        "kl_beta": 0.0,
        "entropy_coef": 0.0,
    }
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)

    def step():
        optimizer.zero_grad(set_to_none=True)
        terms = objective_terms(model(input_ids), targets, weights, request, 1.0)
        terms["loss"].backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()

    times = timed_steps(step, args.steps)
    median = sorted(times)[len(times) // 2]
    best = min(times)
    params = sum(p.numel() for p in model.parameters())
    print(json.dumps({
        "engine": "torch-eager", "torch": torch.__version__, "params": params, "rows": rows, "cols": cols,
        "threads": args.threads, "stepMs": round(median * 1000, 1), "bestStepMs": round(best * 1000, 1),
        "tokensPerSecond": round(rows * cols / median), "bestTokensPerSecond": round(rows * cols / best),
    }))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    e = sub.add_parser("evaluate")
    e.add_argument("--checkpoint", required=True)
    e.add_argument("--request", required=True)
    e.add_argument("--out", required=True)
    e.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    e.add_argument("--adapter", help="a LoRA adapter in PEFT's layout over the frozen checkpoint")
    s = sub.add_parser("score")
    s.add_argument("--checkpoint", required=True)
    s.add_argument("--tokens", required=True, help="a file holding comma-separated token ids or a JSON list")
    s.add_argument("--dtype", default="float32", choices=["float64", "float32"])
    s.add_argument("--threads", type=int, default=2)
    w = sub.add_parser("write-adapter")
    w.add_argument("--checkpoint", required=True)
    w.add_argument("--out", required=True)
    w.add_argument("--r", type=int, default=4)
    w.add_argument("--alpha", type=float, default=8)
    w.add_argument("--targets", default="q_proj,v_proj")
    b = sub.add_parser("bench")
    b.add_argument("--config", required=True)
    b.add_argument("--rows", type=int, default=16)
    b.add_argument("--cols", type=int, default=128)
    b.add_argument("--threads", type=int, default=2)
    b.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()
    {"evaluate": evaluate, "score": score, "bench": bench, "write-adapter": write_adapter}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
