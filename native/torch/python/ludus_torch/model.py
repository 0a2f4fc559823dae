"""The Qwen3 / Qwen2 / Llama decoder as transformers computes it, with Hugging Face's parameter names, and LoRA on
its projections with PEFT's (`<projection>.lora_A.weight`, `.lora_B.weight`), for training: no KV cache, the LM head
applied by the objective at the positions it weighs."""

import math

import torch
import torch.nn.functional as F
from torch import nn

from . import WorkerError

ARCHITECTURES = ("qwen3", "qwen2", "llama")


class RMSNorm(nn.Module):
    def __init__(self, size, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))
        self.eps = eps

    def forward(self, x):
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(x.dtype)


class LoraLinear(nn.Module):
    """A frozen projection plus (alpha / r) · B A x (PEFT's LoRA, no dropout): `weight` (and `bias`) are the base's,
    `lora_A` [r, in] and `lora_B` [out, r] the adapter's."""

    def __init__(self, base, r, scale):
        super().__init__()
        self.weight = base.weight
        self.bias = base.bias
        self.weight.requires_grad_(False)
        if self.bias is not None:
            self.bias.requires_grad_(False)
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        self.scale = scale

    def forward(self, x):
        return F.linear(x, self.weight, self.bias) + self.lora_B(self.lora_A(x)) * self.scale


def rope_tables(head_dim, theta, length, device):
    """cos and sin [length, head_dim] of the rotate_half rotary embedding, angles in float64 rounded once (as ludus's
    tables are)."""
    inv_freq = theta ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    angles = torch.arange(length, dtype=torch.float64)[:, None] * inv_freq[None, :]
    angles = torch.cat((angles, angles), dim=-1)
    return angles.cos().float().to(device), angles.sin().float().to(device)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


_SDPA = getattr(F, "scaled_dot_product_attention", None)


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        d, q_dim, kv_dim = c["hiddenSize"], c["numHeads"] * c["headDim"], c["numKvHeads"] * c["headDim"]
        self.q_proj = nn.Linear(d, q_dim, bias=c["qkvBias"])
        self.k_proj = nn.Linear(d, kv_dim, bias=c["qkvBias"])
        self.v_proj = nn.Linear(d, kv_dim, bias=c["qkvBias"])
        self.o_proj = nn.Linear(q_dim, d, bias=c["oBias"])
        if c["qkNorm"]:
            self.q_norm = RMSNorm(c["headDim"], c["rmsNormEps"])
            self.k_norm = RMSNorm(c["headDim"], c["rmsNormEps"])

    def forward(self, x, cos, sin):
        c = self.c
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, c["numHeads"], c["headDim"])
        k = self.k_proj(x).view(b, t, c["numKvHeads"], c["headDim"])
        v = self.v_proj(x).view(b, t, c["numKvHeads"], c["headDim"]).transpose(1, 2)
        if c["qkNorm"]:
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = q.transpose(1, 2), k.transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        groups = c["numHeads"] // c["numKvHeads"]
        if groups > 1:
            k, v = k.repeat_interleave(groups, dim=1), v.repeat_interleave(groups, dim=1)
        if _SDPA is not None:
            out = _SDPA(q, k, v, is_causal=True)
        else:
            scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(c["headDim"])
            causal = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
            out = torch.matmul(torch.softmax(scores.masked_fill(causal, float("-inf")).float(), dim=-1).to(q.dtype), v)
        return self.o_proj(out.transpose(1, 2).reshape(b, t, -1))


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, i, bias = c["hiddenSize"], c["intermediateSize"], c["mlpBias"]
        self.gate_proj = nn.Linear(d, i, bias=bias)
        self.up_proj = nn.Linear(d, i, bias=bias)
        self.down_proj = nn.Linear(i, d, bias=bias)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.input_layernorm = RMSNorm(c["hiddenSize"], c["rmsNormEps"])
        self.self_attn = Attention(c)
        self.post_attention_layernorm = RMSNorm(c["hiddenSize"], c["rmsNormEps"])
        self.mlp = MLP(c)

    def forward(self, x, cos, sin):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))


class Decoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embed_tokens = nn.Embedding(c["vocabSize"], c["hiddenSize"])
        self.layers = nn.ModuleList([Layer(c) for _ in range(c["numLayers"])])
        self.norm = RMSNorm(c["hiddenSize"], c["rmsNormEps"])


class CausalLM(nn.Module):
    """forward(input_ids, positions) is the logits [len(positions), V] at the flat positions (row · T + column) of
    the batch: the output projection (the embedding when tied) runs only where a loss is computed."""

    def __init__(self, c):
        super().__init__()
        self.c = c
        self.model = Decoder(c)
        if not c["tieWordEmbeddings"]:
            self.lm_head = nn.Linear(c["hiddenSize"], c["vocabSize"], bias=False)
        self._rope = (0, None, None)

    def head(self):
        return self.model.embed_tokens.weight if self.c["tieWordEmbeddings"] else self.lm_head.weight

    def forward(self, input_ids, positions):
        t = input_ids.shape[1]
        if self._rope[0] < t:
            self._rope = (max(t, 2 * self._rope[0]), *rope_tables(self.c["headDim"], self.c["ropeTheta"], max(t, 2 * self._rope[0]), input_ids.device))
        cos, sin = self._rope[1][:t], self._rope[2][:t]
        x = self.model.embed_tokens(input_ids)
        for layer in self.model.layers:
            x = layer(x, cos, sin)
        hidden = self.model.norm(x)
        return F.linear(hidden.reshape(-1, hidden.shape[-1]).index_select(0, positions), self.head())


def weight_names(c):
    """Every tensor the config implies, in ludus's order (native/model/weights.ts weightShapes)."""
    names = ["model.embed_tokens.weight"]
    for i in range(c["numLayers"]):
        p = f"model.layers.{i}"
        names.append(f"{p}.input_layernorm.weight")
        names += [f"{p}.self_attn.{x}_proj.weight" for x in "qkv"]
        if c["qkvBias"]:
            names += [f"{p}.self_attn.{x}_proj.bias" for x in "qkv"]
        names.append(f"{p}.self_attn.o_proj.weight")
        if c["oBias"]:
            names.append(f"{p}.self_attn.o_proj.bias")
        if c["qkNorm"]:
            names += [f"{p}.self_attn.q_norm.weight", f"{p}.self_attn.k_norm.weight"]
        names.append(f"{p}.post_attention_layernorm.weight")
        names += [f"{p}.mlp.{x}_proj.weight" for x in ("gate", "up", "down")]
        if c["mlpBias"]:
            names += [f"{p}.mlp.{x}_proj.bias" for x in ("gate", "up", "down")]
    names.append("model.norm.weight")
    if not c["tieWordEmbeddings"]:
        names.append("lm_head.weight")
    return names


def build(c, weights, lora=None, device="cpu"):
    """The model with `weights` ({name: tensor}, every tensor of weight_names) loaded strictly, and LoRA over the
    targeted projections when `lora` is {"r", "alpha", "targets", "tensors": {ludus name: tensor}}: then only the
    adapter trains. Returns (model, {name: trained parameter})."""
    model = _empty_model(c, device)
    missing = [name for name in weight_names(c) if name not in weights]
    if missing:
        raise WorkerError("CHECKPOINT_TENSOR_MISSING", f"the base has no tensor \"{missing[0]}\"")
    model.load_state_dict({name: weights[name] for name in weight_names(c)}, strict=True)
    model._rope = (0, None, None)
    if lora is None:
        return model, dict(model.named_parameters())
    for param in model.parameters():
        param.requires_grad_(False)
    scale = lora["alpha"] / lora["r"]
    for layer in model.model.layers:
        for parent in (layer.self_attn, layer.mlp):
            for target in lora["targets"]:
                base = getattr(parent, target, None)
                if isinstance(base, nn.Linear):
                    setattr(parent, target, LoraLinear(base, lora["r"], scale).to(device))
    trained = {name: p for name, p in model.named_parameters() if ".lora_A." in name or ".lora_B." in name}
    with torch.no_grad():
        for name, p in trained.items():
            p.copy_(lora["tensors"][name])
            p.requires_grad_(True)
    return model, trained


def _empty_model(c, device):
    if hasattr(torch.device, "__enter__"):  # torch >= 2.0: no initialisation of weights about to be replaced
        with torch.device("meta"):
            model = CausalLM(c)
        return model.to_empty(device=device)
    return CausalLM(c).to(device)
