#!/usr/bin/env python3
"""PyTorch eager decode baseline for `ludus bench engine`: the reference model of qwen3_reference.py stepped
token by token with a KV cache grown by torch.cat (transformers' DynamicCache) and eager attention (torch 1.13
has no scaled_dot_product_attention), sampling every row from the softmax of its logits. Prints one JSON line with tokens/s over the whole rollout
and over its decode steps alone (decodeTokensPerSecond, the prefill excluded).

  torch_decode_bench.py --config config.json [--batch 64 --new-tokens 256 --prompt-tokens 16 --threads 2]
"""
import argparse
import json
import time

import torch
import torch.nn.functional as F

from qwen3_reference import Arch, CausalLM


@torch.no_grad()
def next_token_logits(model, input_ids, caches, start):
    return model(input_ids, caches, start)[:, -1, :]


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
        """Seconds of the decode steps after the first sampled token (the prefill excluded)."""
        caches = [{} for _ in model.model.layers]
        logits = next_token_logits(model, prompt, caches, 0)
        position = args.prompt_tokens
        first = time.perf_counter()
        for step in range(new_tokens):
            token = torch.multinomial(F.softmax(logits, dim=-1), 1)
            if step == 0:
                first = time.perf_counter()
            if step + 1 < new_tokens:
                logits = next_token_logits(model, token, caches, position)
                position += 1
        return time.perf_counter() - first

    rollout(min(8, args.new_tokens))
    start = time.perf_counter()
    decode_seconds = rollout(args.new_tokens)
    seconds = time.perf_counter() - start
    print(json.dumps({"engine": "torch-eager", "torch": torch.__version__, "batch": args.batch, "threads": args.threads,
                      "tokensPerSecond": round(args.batch * args.new_tokens / seconds),
                      "decodeTokensPerSecond": round(args.batch * (args.new_tokens - 1) / decode_seconds, 2)}))


if __name__ == "__main__":
    main()
