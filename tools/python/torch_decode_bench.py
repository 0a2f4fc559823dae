#!/usr/bin/env python3
"""PyTorch eager decode baseline for `ludus bench engine`: the reference model of qwen3_reference.py stepped
token by token with a KV cache grown by torch.cat (transformers' DynamicCache) and eager attention (torch 1.13
has no scaled_dot_product_attention), sampling every row from the softmax of its logits. Prints one JSON line with tokens/s.

  torch_decode_bench.py --config config.json [--batch 64 --new-tokens 256 --prompt-tokens 16 --threads 2]
"""
import argparse
import json
import time

import torch
import torch.nn.functional as F

from qwen3_reference import Arch, CausalLM, rotate_half


def rope(arch, positions):
    inv_freq = 1.0 / (arch.rope_theta ** (torch.arange(0, arch.head_dim, 2, dtype=torch.int64).float() / arch.head_dim))
    freqs = positions.float()[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


@torch.no_grad()
def forward_cached(model, input_ids, cache, start):
    a = model.a
    b, t = input_ids.shape
    cos, sin = rope(a, torch.arange(start, start + t))
    x = model.model.embed_tokens(input_ids)
    groups = a.num_heads // a.num_kv_heads
    for i, layer in enumerate(model.model.layers):
        attn = layer.self_attn
        h = layer.input_layernorm(x)
        q = attn.q_proj(h).view(b, t, -1, a.head_dim)
        k = attn.k_proj(h).view(b, t, -1, a.head_dim)
        v = attn.v_proj(h).view(b, t, -1, a.head_dim).transpose(1, 2)
        if a.qk_norm:
            q, k = attn.q_norm(q), attn.k_norm(k)
        q, k = q.transpose(1, 2), k.transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if cache[i] is not None:
            k = torch.cat((cache[i][0], k), dim=2)
            v = torch.cat((cache[i][1], v), dim=2)
        cache[i] = (k, v)
        scores = torch.matmul(q, k.repeat_interleave(groups, dim=1).transpose(2, 3)) * a.head_dim**-0.5
        if t > 1:
            scores = scores + torch.full((t, t), float("-inf")).triu(1)
        out = torch.matmul(F.softmax(scores, dim=-1), v.repeat_interleave(groups, dim=1))
        x = x + attn.o_proj(out.transpose(1, 2).reshape(b, t, -1))
        x = x + layer.mlp(layer.post_attention_layernorm(x))
    x = model.model.norm(x[:, -1:, :])
    head = model.model.embed_tokens.weight if a.tie else model.lm_head.weight
    return F.linear(x, head)[:, -1, :]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--new-tokens", type=int, default=256)
    parser.add_argument("--prompt-tokens", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    with open(args.config) as f:
        config = json.load(f)
    model = CausalLM(Arch(config)).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.fill_(1.0) if name.endswith("norm.weight") else p.normal_(0.0, 0.02)
    prompt = torch.randint(1, config["vocab_size"], (args.batch, args.prompt_tokens))

    def rollout(new_tokens):
        cache = [None] * len(model.model.layers)
        logits = forward_cached(model, prompt, cache, 0)
        position = args.prompt_tokens
        for step in range(new_tokens):
            token = torch.multinomial(F.softmax(logits, dim=-1), 1)
            if step + 1 < new_tokens:
                logits = forward_cached(model, token, cache, position)
                position += 1

    rollout(8)
    start = time.perf_counter()
    rollout(args.new_tokens)
    seconds = time.perf_counter() - start
    print(json.dumps({"engine": "torch-eager", "torch": torch.__version__, "batch": args.batch, "threads": args.threads,
                      "tokensPerSecond": round(args.batch * args.new_tokens / seconds)}))


if __name__ == "__main__":
    main()
