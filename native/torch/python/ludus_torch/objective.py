"""ludus's objective over one micro-batch (native/train/objectives.ts): the clipped policy gradient with the k3 KL
term, an entropy bonus and an imitation term, or supervised cross-entropy. Loss weights, advantages, reference and
imitation weights arrive per token, already normalized over the whole batch by the door (perTokenInputs), so
micro-batches and ranks add up to one loss."""

import torch
import torch.nn.functional as F


def micro_batch(model, batch, knobs, scale=1.0):
    """Runs forward and backward (the loss times `scale`: the world size under data parallelism, whose gradient
    all-reduce averages) on `batch`, a dict of [rows, cols] tensors; returns the masked sums ludus reports."""
    weights = batch["weights"]
    imitation = batch.get("imitation")
    weighed = weights != 0 if imitation is None else (weights != 0) | (imitation != 0)
    positions = weighed.reshape(-1).nonzero().squeeze(1)
    logits = model(batch["input_ids"], positions) / knobs["temperature"]
    log_probs = F.log_softmax(logits, dim=-1)
    at = lambda name: batch[name].reshape(-1).index_select(0, positions)  # noqa: E731
    logprobs = log_probs.gather(1, at("targets").long()[:, None]).squeeze(1)
    w = at("weights")
    mask = at("mask")
    entropy_coef = knobs.get("entropy_coef", 0.0)
    with torch.enable_grad() if entropy_coef != 0 else torch.no_grad():
        entropy = -(log_probs.exp() * log_probs).sum(-1)
    if knobs["objective"] == "sft":
        loss = -(w * logprobs).sum()
        kl = clipped = torch.zeros_like(logprobs)
    else:
        advantages, old, ref = at("advantages"), at("old_logprobs"), at("ref_logprobs")
        ratio = torch.exp(logprobs - old)
        unclipped = ratio * advantages
        bounded = ratio.clamp(1 - knobs["clip_low"], 1 + knobs["clip_high"]) * advantages
        active = unclipped <= bounded
        # The clipped branch carries no gradient (the min's derivative ludus writes by hand).
        surrogate = torch.where(active, unclipped, bounded.detach())
        ref_minus = ref - logprobs
        kl = torch.exp(ref_minus) - ref_minus - 1
        per_token = -surrogate + knobs["kl_beta"] * kl - entropy_coef * entropy
        loss = (w * per_token).sum()
        if imitation is not None:
            loss = loss - (at("imitation") * logprobs).sum()
        clipped = (~active).to(logprobs.dtype)
    (loss * scale).backward()
    with torch.no_grad():
        return {
            "loss": float(loss),
            "tokens": float(mask.sum()),
            "kl": float((mask * kl.detach()).sum()),
            "entropy": float((mask * entropy.detach()).sum()),
            "clipped": float((mask * clipped).sum()),
        }
