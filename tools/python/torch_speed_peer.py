#!/usr/bin/env python3
"""The PyTorch peer of `ludus bench engine`, written for speed: what a practitioner tuning eager PyTorch 1.13 on a
CPU would run, not the correctness reference (qwen3_reference.py, kept as the reference).

- a static KV cache per layer, [B, Hkv, capacity, hd], allocated once and written in place; attention reads the
  filled prefix as a view, never the whole capacity and never a copy;
- grouped-query attention without repeat_kv: the query heads of one key/value head are stacked into one batched
  product against that head's keys (torch 1.13 has no scaled_dot_product_attention, so this is its fastest path);
- q/k/v and gate/up fused into one projection each; everything float32, no upcast;
- the vocabulary projection only where a logit is used (the last position while decoding);
- training computes only the terms the compared run uses (the clipped policy-gradient surrogate over the target
  log-probabilities, from cross_entropy: no entropy, no KL), then clip_grad_norm_(1.0) and torch.optim.AdamW
  (foreach) with ludus's hyperparameters and its no-decay set (norm weights and biases);
- torch.set_num_threads equal to ludus's threads (the caller also sets OMP_NUM_THREADS and OPENBLAS_NUM_THREADS).

  decode  --config config.json [--batch 64 --new-tokens 256 --prompt-tokens 16 --threads 2 --repeats 1 --jit none]
  train   --config config.json [--rows 16 --cols 128 --threads 2 --steps 5 --jit none]
      Random weights (normal(0, 0.02), norms one); one JSON line with tokens/s.
  verify  --checkpoint DIR --rows 3 --cols 24 --prefix 5 [--threads 2 --jit none]
      The same weights through this peer and through qwen3_reference.py: teacher-forced log-probabilities by a full
      forward and by a prefill of `prefix` tokens followed by cached one-token steps (compiled as --jit says), the
      policy-gradient loss and the gradients' global norm; one JSON line with both and their largest differences.

--jit script compiles the model with torch.jit.script; --jit freeze (decode) also freezes it and applies
torch.jit.optimize_for_inference; --mkldnn (decode) swaps every Linear for oneDNN's (torch.utils.mkldnn). What each
does is measured in docs/performance.md: `ludus bench engine` decodes with --jit freeze, the fastest there, and trains
eagerly (script gained nothing).
"""
import argparse
import json
import time
from typing import List, Optional

import torch
import torch.nn.functional as F
import torch.utils.mkldnn
from torch import nn

from qwen3_reference import Arch, read_checkpoint, rope_cos_sin, timed_steps


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return x * cos + torch.cat((-x[..., half:], x[..., :half]), dim=-1) * sin


class Block(nn.Module):
    def __init__(self, a: Arch):
        super().__init__()
        self.heads = a.num_heads
        self.kv_heads = a.num_kv_heads
        self.head_dim = a.head_dim
        self.groups = a.num_heads // a.num_kv_heads
        self.eps = a.eps
        self.qk_norm = a.qk_norm
        self.scale = a.head_dim**-0.5
        q, kv = a.num_heads * a.head_dim, a.num_kv_heads * a.head_dim
        self.q_size = q
        self.kv_size = kv
        self.input_norm = nn.Parameter(torch.ones(a.hidden_size))
        self.qkv = nn.Linear(a.hidden_size, q + 2 * kv, bias=a.qkv_bias)
        self.o = nn.Linear(q, a.hidden_size, bias=a.o_bias)
        self.q_norm = nn.Parameter(torch.ones(a.head_dim))
        self.k_norm = nn.Parameter(torch.ones(a.head_dim))
        self.post_norm = nn.Parameter(torch.ones(a.hidden_size))
        self.gate_up = nn.Linear(a.hidden_size, 2 * a.intermediate_size, bias=a.mlp_bias)
        self.down = nn.Linear(a.intermediate_size, a.hidden_size, bias=a.mlp_bias)
        self.intermediate = a.intermediate_size

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, mask: Optional[torch.Tensor],
                cache_k: Optional[torch.Tensor], cache_v: Optional[torch.Tensor], start: int) -> torch.Tensor:
        b, t = x.shape[0], x.shape[1]
        qkv = self.qkv(rms_norm(x, self.input_norm, self.eps))
        q, k, v = qkv.split([self.q_size, self.kv_size, self.kv_size], dim=-1)
        q = q.view(b, t, self.heads, self.head_dim)
        k = k.view(b, t, self.kv_heads, self.head_dim)
        if self.qk_norm:
            q = rms_norm(q, self.q_norm, self.eps)
            k = rms_norm(k, self.k_norm, self.eps)
        q = rotate(q.transpose(1, 2), cos, sin)
        k = rotate(k.transpose(1, 2), cos, sin)
        v = v.view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        if cache_k is not None and cache_v is not None:
            cache_k[:, :, start:start + t] = k
            cache_v[:, :, start:start + t] = v
            k = cache_k[:, :, : start + t]
            v = cache_v[:, :, : start + t]
        # The query heads sharing a key/value head, stacked: one product per key/value head, no repeated keys.
        q = q.reshape(b, self.kv_heads, self.groups * t, self.head_dim)
        scores = torch.matmul(q, k.transpose(2, 3)).mul_(self.scale)
        if mask is not None:
            scores = scores + mask
        out = torch.matmul(torch.softmax(scores, dim=-1), v)
        out = out.view(b, self.heads, t, self.head_dim).transpose(1, 2).reshape(b, t, self.q_size)
        x = x + self.o(out)
        gate, up = self.gate_up(rms_norm(x, self.post_norm, self.eps)).split(self.intermediate, dim=-1)
        return x + self.down(F.silu(gate) * up)


class Model(nn.Module):
    def __init__(self, a: Arch, max_positions: int):
        super().__init__()
        self.groups = a.num_heads // a.num_kv_heads
        self.eps = a.eps
        self.tie = a.tie
        self.embed = nn.Embedding(a.vocab_size, a.hidden_size)
        self.blocks = nn.ModuleList([Block(a) for _ in range(a.num_layers)])
        self.norm = nn.Parameter(torch.ones(a.hidden_size))
        self.head = nn.Parameter(torch.empty(0) if a.tie else torch.empty(a.vocab_size, a.hidden_size))
        cos, sin = rope_cos_sin(a, max_positions, torch.float32)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def causal_mask(self, t: int, start: int) -> torch.Tensor:
        """Additive mask [groups·t, start + t] for the stacked query heads of one key/value head."""
        mask = torch.full((t, start + t), float("-inf")).triu(start + 1)
        return mask.repeat(self.groups, 1)

    def hidden(self, input_ids: torch.Tensor, caches: List[torch.Tensor], start: int) -> torch.Tensor:
        t = input_ids.shape[1]
        cos, sin = self.cos[start:start + t], self.sin[start:start + t]
        mask = self.causal_mask(t, start) if t > 1 else None
        x = self.embed(input_ids)
        for i, block in enumerate(self.blocks):
            if len(caches) > 0:
                x = block(x, cos, sin, mask, caches[2 * i], caches[2 * i + 1], start)
            else:
                x = block(x, cos, sin, mask, None, None, start)
        return rms_norm(x, self.norm, self.eps)

    def logits(self, h: torch.Tensor) -> torch.Tensor:
        return F.linear(h, self.embed.weight if self.tie else self.head)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        """Logits at every position (training and scoring)."""
        return self.logits(self.hidden(input_ids, [], 0))

    @torch.jit.export
    def step(self, input_ids: torch.Tensor, caches: List[torch.Tensor], start: int) -> torch.Tensor:
        """Writes the tokens' keys and values at `start` and returns the next-token logits of the last position."""
        return self.logits(self.hidden(input_ids, caches, start)[:, -1])


def new_caches(a: Arch, batch: int, capacity: int) -> List[torch.Tensor]:
    shape = (batch, a.num_kv_heads, capacity, a.head_dim)
    return [torch.zeros(shape) for _ in range(2 * a.num_layers)]


def load_hf(model: Model, a: Arch, weights) -> None:
    """Hugging Face tensors into the fused layout."""
    w = lambda name: weights[name].to(torch.float32)
    with torch.no_grad():
        model.embed.weight.copy_(w("model.embed_tokens.weight"))
        model.norm.copy_(w("model.norm.weight"))
        if not a.tie:
            model.head.copy_(w("lm_head.weight"))
        for i, block in enumerate(model.blocks):
            p = f"model.layers.{i}."
            block.input_norm.copy_(w(p + "input_layernorm.weight"))
            block.post_norm.copy_(w(p + "post_attention_layernorm.weight"))
            block.qkv.weight.copy_(torch.cat([w(p + f"self_attn.{n}_proj.weight") for n in "qkv"]))
            if a.qkv_bias:
                block.qkv.bias.copy_(torch.cat([w(p + f"self_attn.{n}_proj.bias") for n in "qkv"]))
            block.o.weight.copy_(w(p + "self_attn.o_proj.weight"))
            if a.o_bias:
                block.o.bias.copy_(w(p + "self_attn.o_proj.bias"))
            if a.qk_norm:
                block.q_norm.copy_(w(p + "self_attn.q_norm.weight"))
                block.k_norm.copy_(w(p + "self_attn.k_norm.weight"))
            block.gate_up.weight.copy_(torch.cat([w(p + "mlp.gate_proj.weight"), w(p + "mlp.up_proj.weight")]))
            block.down.weight.copy_(w(p + "mlp.down_proj.weight"))
            if a.mlp_bias:
                block.gate_up.bias.copy_(torch.cat([w(p + "mlp.gate_proj.bias"), w(p + "mlp.up_proj.bias")]))
                block.down.bias.copy_(w(p + "mlp.down_proj.bias"))


def random_model(config, max_positions: int) -> Model:
    a = Arch(config)
    model = Model(a, max_positions)
    torch.manual_seed(0)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1:
                p.fill_(1.0) if name.endswith("norm") else p.zero_()
            elif p.numel() > 0:
                p.normal_(0.0, 0.02)
    return model


def target_logprobs(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return -F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction="none").view(targets.shape)


def pg_loss(logprobs, old, advantages, weights, clip_low: float = 0.2, clip_high: float = 0.2):
    """The clipped policy-gradient surrogate, the only term of the compared objective (kl_beta = entropy = 0)."""
    ratio = torch.exp(logprobs - old)
    return -(weights * torch.min(ratio * advantages, ratio.clamp(1 - clip_low, 1 + clip_high) * advantages)).sum()


def adamw(model: Model, lr: float):
    """ludus's AdamW: betas (0.9, 0.999), eps 1e-8, weight decay 0.01 except on norm weights and biases."""
    decay, plain = [], []
    for name, p in model.named_parameters():
        if p.numel() > 0:
            (plain if p.dim() == 1 else decay).append(p)
    return torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": plain, "weight_decay": 0.0}], lr=lr, betas=(0.9, 0.999), eps=1e-8, foreach=True)


def compiled(model: Model, jit: str):
    if jit == "none":
        return model
    scripted = torch.jit.script(model)
    if jit == "freeze":
        scripted = torch.jit.optimize_for_inference(torch.jit.freeze(scripted.eval(), preserved_attrs=["step"]))
    return scripted


def decode(args):
    torch.set_num_threads(args.threads)
    with open(args.config) as f:
        config = json.load(f)
    a = Arch(config)
    capacity = args.prompt_tokens + args.new_tokens
    model = random_model(config, capacity).eval()
    if args.mkldnn:
        model = torch.utils.mkldnn.to_mkldnn(model)
    runner = compiled(model, args.jit)
    prompt = torch.randint(1, a.vocab_size, (args.batch, args.prompt_tokens))
    caches = new_caches(a, args.batch, capacity)

    @torch.inference_mode()
    def rollout(new_tokens):
        """Seconds of the whole rollout and of its decode steps after the first sampled token."""
        start = time.perf_counter()
        logits = runner.step(prompt, caches, 0)
        position = args.prompt_tokens
        first = time.perf_counter()
        for i in range(new_tokens):
            token = torch.multinomial(torch.softmax(logits, dim=-1), 1)
            if i == 0:
                first = time.perf_counter()
            if i + 1 < new_tokens:
                logits = runner.step(token, caches, position)
                position += 1
        end = time.perf_counter()
        return end - start, end - first

    rollout(min(8, args.new_tokens))
    runs = [rollout(args.new_tokens) for _ in range(args.repeats)]
    whole = sorted(r[0] for r in runs)[len(runs) // 2]
    steps = sorted(r[1] for r in runs)[len(runs) // 2]
    print(json.dumps({"engine": "torch-speed-peer", "torch": torch.__version__, "batch": args.batch, "threads": args.threads, "jit": args.jit, "mkldnn": args.mkldnn,
                      "tokensPerSecond": round(args.batch * args.new_tokens / whole, 1),
                      "decodeTokensPerSecond": round(args.batch * (args.new_tokens - 1) / steps, 2)}))


def train(args):
    torch.set_num_threads(args.threads)
    with open(args.config) as f:
        config = json.load(f)
    rows, cols, vocab = args.rows, args.cols, config["vocab_size"]
    model = random_model(config, cols)
    runner = compiled(model, args.jit)
    input_ids = torch.randint(0, vocab, (rows, cols))
    targets = torch.randint(0, vocab, (rows, cols))
    weights = torch.full((rows, cols), 1.0 / (rows * cols))
    advantages = torch.randn(rows, 1)
    with torch.no_grad():
        old = target_logprobs(runner(input_ids), targets)
    optimizer = adamw(model, 1e-4)

    def step():
        optimizer.zero_grad(set_to_none=True)
        pg_loss(target_logprobs(runner(input_ids), targets), old, advantages, weights).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()

    times = timed_steps(step, args.steps)
    median = sorted(times)[len(times) // 2]
    params = sum(p.numel() for p in model.parameters())
    print(json.dumps({"engine": "torch-speed-peer", "torch": torch.__version__, "params": params, "rows": rows, "cols": cols, "threads": args.threads, "jit": args.jit,
                      "stepMs": round(median * 1000, 1), "tokensPerSecond": round(rows * cols / median)}))


def verify(args):
    """This peer against qwen3_reference.py on the same checkpoint and tokens."""
    import qwen3_reference as ref

    torch.set_num_threads(args.threads)
    config, weights = read_checkpoint(args.checkpoint)
    a = Arch(config)
    peer = Model(a, args.cols)
    load_hf(peer, a, weights)
    reference = ref.load_model(config, weights, torch.float32)
    g = torch.Generator().manual_seed(7)
    tokens = torch.randint(0, a.vocab_size, (args.rows, args.cols), generator=g)
    inputs, targets = tokens[:, :-1], tokens[:, 1:]
    with torch.no_grad():
        expected = ref.objective_terms(reference(inputs), targets, torch.ones(targets.shape), {"objective": "sft"}, 1.0)["logprobs"]
        full = target_logprobs(peer(inputs), targets)
        caches = new_caches(a, args.rows, args.cols)
        runner = compiled(peer, args.jit)
        stepped = [torch.log_softmax(runner.step(inputs[:, : args.prefix], caches, 0), -1)]
        for position in range(args.prefix, inputs.shape[1]):
            stepped.append(torch.log_softmax(runner.step(inputs[:, position : position + 1], caches, position), -1))
        peer.train()
        cached = torch.stack(stepped, 1).gather(-1, targets[:, args.prefix - 1 :].unsqueeze(-1)).squeeze(-1)
    old = expected.detach() + 0.05 * torch.randn(expected.shape, generator=g)
    advantages = torch.randn(args.rows, 1, generator=g).expand(targets.shape)
    loss_weights = torch.full(targets.shape, 1.0 / targets.numel())
    peer_loss = pg_loss(target_logprobs(peer(inputs), targets), old, advantages, loss_weights)
    peer_loss.backward()
    request = {"old_logprobs": old, "ref_logprobs": old, "advantages": advantages, "clip_low": 0.2, "clip_high": 0.2, "kl_beta": 0.0, "entropy_coef": 0.0}
    ref_loss = ref.objective_terms(reference(inputs), targets, loss_weights, request, 1.0)["loss"]
    ref_loss.backward()
    norm = lambda params: float(torch.sqrt(sum((p.grad.double() ** 2).sum() for p in params if p.grad is not None)))
    print(json.dumps({
        "reference": expected.tolist(), "full": full.tolist(), "cached": cached.tolist(), "prefix": args.prefix,
        "max_diff_full": float((full - expected).abs().max()), "max_diff_cached": float((cached - expected[:, args.prefix - 1 :]).abs().max()),
        "loss": float(peer_loss), "reference_loss": float(ref_loss),
        "grad_norm": norm(peer.parameters()), "reference_grad_norm": norm(reference.parameters()),
    }))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("decode")
    d.add_argument("--config", required=True)
    d.add_argument("--batch", type=int, default=64)
    d.add_argument("--new-tokens", type=int, default=256)
    d.add_argument("--prompt-tokens", type=int, default=16)
    d.add_argument("--threads", type=int, default=2)
    d.add_argument("--repeats", type=int, default=1)
    d.add_argument("--jit", choices=["none", "script", "freeze"], default="none")
    d.add_argument("--mkldnn", action="store_true")
    t = sub.add_parser("train")
    t.add_argument("--config", required=True)
    t.add_argument("--rows", type=int, default=16)
    t.add_argument("--cols", type=int, default=128)
    t.add_argument("--threads", type=int, default=2)
    t.add_argument("--steps", type=int, default=5)
    t.add_argument("--jit", choices=["none", "script"], default="none")
    v = sub.add_parser("verify")
    v.add_argument("--checkpoint", required=True)
    v.add_argument("--rows", type=int, default=3)
    v.add_argument("--cols", type=int, default=24)
    v.add_argument("--prefix", type=int, default=5)
    v.add_argument("--threads", type=int, default=2)
    v.add_argument("--jit", choices=["none", "script", "freeze"], default="none", help="how the cached decoding path is compiled")
    args = parser.parse_args()
    {"decode": decode, "train": train, "verify": verify}[args.command](args)


if __name__ == "__main__":
    main()
