"""One trained model of the worker: its module (replicated under DDP, sharded under FSDP), the tensors it trains,
AdamW as ludus configures it (native/train/adamw.ts), and the gradients accumulated since the last update."""

import math

import torch

from . import WorkerError
from .model import build
from .objective import micro_batch

PER_TOKEN = ("weights", "mask", "advantages", "old_logprobs", "ref_logprobs", "imitation")


class Learner:
    def __init__(self, spec, weights, lora, context):
        self.context = context
        self.config = spec["learner"]
        model, trained = build(spec["config"], weights, lora, context.device)
        self.names = sorted(trained)
        self.model = context.wrap(model)
        self.module = model
        self.trained = trained
        optimizer = self.config["optimizer"]
        no_decay = tuple(optimizer["noDecaySuffixes"])
        groups = [
            {"params": [trained[n] for n in self.names if not n.endswith(no_decay)], "weight_decay": optimizer["weightDecay"]},
            {"params": [trained[n] for n in self.names if n.endswith(no_decay)], "weight_decay": 0.0},
        ]
        self.optimizer = torch.optim.AdamW([g for g in groups if g["params"]], lr=optimizer["lr"], betas=tuple(optimizer["betas"]), eps=optimizer["eps"])
        self.max_grad_norm = optimizer["maxGradNorm"]
        self.step = 0
        self.pending = None

    # ------------------------------------------------------------ learning

    def forward_backward(self, batch, knobs):
        """The gradients of this rank's rows added to those pending; the sums over every rank."""
        rows = batch["input_ids"].shape[0]
        per_run = self.config.get("microBatchRows") or rows
        sums = {"loss": 0.0, "tokens": 0.0, "kl": 0.0, "entropy": 0.0, "clipped": 0.0}
        runs = 0
        windows = []
        for r0 in range(0, rows, per_run):
            trained = batch["weights"][r0 : r0 + per_run] != 0
            if "imitation" in batch:
                trained |= batch["imitation"][r0 : r0 + per_run] != 0
            used = trained.any(0).nonzero()
            if used.numel() > 0:
                windows.append((r0, r0 + per_run, int(used[-1]) + 1))
        scale = float(self.context.world)
        # Under DDP every rank must join each gradient all-reduce: ranks run the same number of backward passes, a
        # rank short of rows running a pass of zero weight, and only the last pass reduces.
        passes = self.context.max_over_ranks(len(windows))
        for i in range(passes):
            if i < len(windows):
                r0, r1, used = windows[i]
                part = {name: t[r0:r1, :used] for name, t in batch.items()}
                runs += 1
            else:
                part = {name: t[:1, :1] * 0 for name, t in batch.items()}
            with self.context.no_sync(self.model, last=i == passes - 1):
                out = micro_batch(self.model, part, knobs, scale)
            for key in sums:
                sums[key] += out[key]
        totals = self.context.sum_over_ranks([sums[k] for k in ("loss", "tokens", "kl", "entropy", "clipped")])
        self.pending = (self.pending or 0.0) + totals[0]
        return {"loss": totals[0], "tokens": totals[1], "kl": totals[2], "entropy": totals[3], "clipped": totals[4], "micro_batches": self.context.max_over_ranks(runs)}

    def optim_step(self, lr=None):
        """One AdamW update from the pending gradients (zero when none), which are then spent; NON_FINITE leaves the
        weights and moments as they were."""
        loss, self.pending = self.pending, None
        target = self.step + 1
        try:
            if loss is not None and not math.isfinite(loss):
                raise WorkerError("NON_FINITE", f"loss is {_js(loss)} at optimizer step {target}; update skipped")
            squares = self.context.grad_squares(self)
            for name in self.names:
                if not math.isfinite(squares[name]):
                    raise WorkerError("NON_FINITE", f"gradient of \"{name}\" holds {_non_finite(self.trained[name].grad)} at optimizer step {target}; update skipped")
            total = sum(squares.values())
            norm = math.sqrt(total)
            clipped = self.max_grad_norm is not None and norm > self.max_grad_norm
            with torch.no_grad():
                for p in self.trained.values():
                    if p.grad is None:
                        p.grad = torch.zeros_like(p)
                    elif clipped:
                        p.grad.mul_(self.max_grad_norm / (norm + 1e-6))
            rate = self.config["optimizer"]["lr"] if lr is None else lr
            for group in self.optimizer.param_groups:
                group["lr"] = rate
            self.optimizer.step()
            self.step = target
            return {"step": target, "grad_norm": norm, "clipped": clipped}
        finally:
            self.optimizer.zero_grad(set_to_none=True)

    # ------------------------------------------------------------ state

    def tensors(self, kind):
        """{name: full tensor} of the trained parameters (`param`) or of AdamW's first (`m`) or second (`v`) moment."""
        return self.context.full_tensors(self, kind)

    def load(self, kind, tensors):
        with torch.no_grad():
            for name, value in tensors.items():
                p = self.trained[name]
                if kind == "param":
                    p.copy_(value.reshape(p.shape))
                else:
                    state = self.optimizer.state[p]
                    key = "exp_avg" if kind == "m" else "exp_avg_sq"
                    if key not in state:
                        state["exp_avg"] = torch.zeros_like(p)
                        state["exp_avg_sq"] = torch.zeros_like(p)
                    state[key].copy_(value.reshape(p.shape))

    def set_step(self, step):
        self.step = step
        for p in self.trained.values():
            state = self.optimizer.state[p]
            if "exp_avg" not in state:
                state["exp_avg"] = torch.zeros_like(p)
                state["exp_avg_sq"] = torch.zeros_like(p)
            state["step"] = torch.tensor(float(step))


def _non_finite(grad):
    flat = grad.reshape(-1)
    index = int((~torch.isfinite(flat)).nonzero()[0]) if not bool(torch.isfinite(flat).all()) else -1
    return f"{_js(float(flat[index]))} at index {index}" if index >= 0 else "a non-finite value in another rank's shard"


def _js(x):
    """A number as JavaScript prints it, for messages equal to the in-process learner's."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return repr(x)
