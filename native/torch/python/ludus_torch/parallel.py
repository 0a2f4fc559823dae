"""How a model is spread over the worker's processes: alone (world size 1), replicated with DistributedDataParallel,
or sharded with FullyShardedDataParallel. Processes are started by torchrun; rank 0 speaks to the door and passes
each request on to the others over a gloo group, so every rank runs the same calls in the same order."""

import contextlib
import datetime
import os

import torch
import torch.distributed as dist

from . import WorkerError


def fsdp_module():
    """torch.distributed.fsdp, or a coded refusal naming the torch that cannot import it."""
    try:
        from torch.distributed import fsdp  # noqa: F401
        from torch.distributed.fsdp import FullyShardedDataParallel  # noqa: F401

        return fsdp
    except Exception as error:  # Debian's torch 1.13 under Python 3.11 raises ValueError while importing it
        raise WorkerError("TORCH_UNAVAILABLE", f"FSDP cannot be imported in torch {torch.__version__} ({type(error).__name__}: {error}); use --strategy ddp, or a torch whose FSDP imports (>= 2.0)") from None


class Context:
    def __init__(self, device, strategy, threads):
        if threads > 0:
            torch.set_num_threads(threads)
        self.strategy = strategy
        if strategy == "fsdp":
            fsdp_module()
        launched = int(os.environ.get("WORLD_SIZE", "1")) > 1
        if launched or strategy == "fsdp":
            if not launched:  # FSDP needs a process group, even of one process
                os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
                os.environ.setdefault("MASTER_PORT", str(_free_port()))
                os.environ.setdefault("RANK", "0")
                os.environ.setdefault("WORLD_SIZE", "1")
            backend = "nccl" if device.startswith("cuda") else "gloo"
            dist.init_process_group(backend=backend, timeout=datetime.timedelta(minutes=30))
        self.world = dist.get_world_size() if dist.is_initialized() else 1
        self.rank = dist.get_rank() if dist.is_initialized() else 0
        local = int(os.environ.get("LOCAL_RANK", "0"))
        if device == "cuda":
            device = f"cuda:{local}"
            torch.cuda.set_device(local)
        self.device = device
        self.control = dist.new_group(backend="gloo") if dist.is_initialized() else None

    # ------------------------------------------------------------ requests

    def share(self, message):
        """Rank 0's `message` on every rank (None from rank 0 ends the others' loops)."""
        if self.control is None:
            return message
        box = [message]
        dist.broadcast_object_list(box, src=0, group=self.control)
        return box[0]

    def sum_over_ranks(self, values):
        if self.control is None:
            return values
        t = torch.tensor(values, dtype=torch.float64)
        dist.all_reduce(t, group=self.control)
        return t.tolist()

    def max_over_ranks(self, n):
        if self.control is None:
            return n
        t = torch.tensor([n], dtype=torch.int64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX, group=self.control)
        return int(t[0])

    def rows(self, count):
        """This rank's share of `count` rows: a contiguous block, the first ranks taking one more."""
        base, extra = divmod(count, self.world)
        start = self.rank * base + min(self.rank, extra)
        return start, start + base + (1 if self.rank < extra else 0)

    # ------------------------------------------------------------ models

    def wrap(self, model):
        if self.strategy == "fsdp":
            fsdp = fsdp_module()
            from torch.distributed.fsdp.wrap import ModuleWrapPolicy

            from .model import Layer

            return fsdp.FullyShardedDataParallel(model, auto_wrap_policy=ModuleWrapPolicy({Layer}), use_orig_params=True, device_id=torch.device(self.device) if self.device.startswith("cuda") else None)
        if self.world == 1:
            return model
        from torch.nn.parallel import DistributedDataParallel

        return DistributedDataParallel(model, device_ids=[torch.device(self.device)] if self.device.startswith("cuda") else None)

    def no_sync(self, model, last):
        """Gradients kept local on every pass of a call but its last, which reduces them over the ranks."""
        return model.no_sync() if not last and hasattr(model, "no_sync") else contextlib.nullcontext()

    def grad_squares(self, learner):
        """Σ g² of each trained tensor over the whole model (a sharded tensor's shards summed over the ranks)."""
        local = []
        for name in learner.names:
            g = learner.trained[name].grad
            local.append(0.0 if g is None else float(g.double().pow(2).sum()))
        total = self.sum_over_ranks(local) if self.strategy == "fsdp" else local
        return dict(zip(learner.names, total))

    def full_tensors(self, learner, kind):
        """{name: whole tensor on the CPU} of the trained parameters or of a moment."""
        if self.strategy != "fsdp":
            if kind == "param":
                return {n: learner.trained[n].detach().cpu() for n in learner.names}
            key = "exp_avg" if kind == "m" else "exp_avg_sq"
            return {n: _moment(learner, n, key).cpu() for n in learner.names}
        fsdp = fsdp_module()
        model = learner.model
        if kind == "param":
            with fsdp.FullyShardedDataParallel.summon_full_params(model, writeback=False, offload_to_cpu=True):
                return {n: p.detach().clone() for n, p in learner.module.named_parameters() if n in learner.trained}
        with fsdp.FullyShardedDataParallel.state_dict_type(model, fsdp.StateDictType.FULL_STATE_DICT, fsdp.FullStateDictConfig(offload_to_cpu=True, rank0_only=False), fsdp.FullOptimStateDictConfig(offload_to_cpu=True, rank0_only=False)):
            state = fsdp.FullyShardedDataParallel.optim_state_dict(model, learner.optimizer)["state"]
        key = "exp_avg" if kind == "m" else "exp_avg_sq"
        shapes = {n: p.shape for n, p in learner.module.named_parameters()}
        return {n: state[n][key].reshape(shapes[n]).cpu() if n in state else torch.zeros(shapes[n]) for n in learner.names}

    def load_full(self, learner, kind, tensors):
        """Sets whole tensors (every rank is given all of them)."""
        if self.strategy != "fsdp":
            return learner.load(kind, {n: t.to(self.device) for n, t in tensors.items()})
        fsdp = fsdp_module()
        if kind == "param":
            with fsdp.FullyShardedDataParallel.summon_full_params(learner.model, writeback=True):
                with torch.no_grad():
                    params = dict(learner.module.named_parameters())
                    for n, t in tensors.items():
                        params[n].copy_(t.reshape(params[n].shape))
            return None
        raise WorkerError("REMOTE_UNSUPPORTED", "setting AdamW moments of a sharded (FSDP) model one moment at a time is not supported; load both with the step")

    def load_optimizer(self, learner, step, m, v):
        if self.strategy != "fsdp":
            learner.set_step(step)
            learner.load("m", {n: t.to(self.device) for n, t in m.items()})
            learner.load("v", {n: t.to(self.device) for n, t in v.items()})
            return
        fsdp = fsdp_module()
        shapes = {n: p.shape for n, p in learner.module.named_parameters()}
        config = (fsdp.StateDictType.FULL_STATE_DICT, fsdp.FullStateDictConfig(offload_to_cpu=True, rank0_only=False), fsdp.FullOptimStateDictConfig(offload_to_cpu=True, rank0_only=False))
        with fsdp.FullyShardedDataParallel.state_dict_type(learner.model, *config):
            # The optimizer's own full state dict (its param groups named as FSDP names them), with the moments replaced.
            full = fsdp.FullyShardedDataParallel.optim_state_dict(learner.model, learner.optimizer)
            for n in learner.names:
                full["state"][n] = {"step": torch.tensor(float(step)), "exp_avg": m[n].reshape(shapes[n]), "exp_avg_sq": v[n].reshape(shapes[n])}
            # Keywords: the positional order of this call changed between torch 2.0 and 2.1.
            learner.optimizer.load_state_dict(fsdp.FullyShardedDataParallel.optim_state_dict_to_load(model=learner.model, optim=learner.optimizer, optim_state_dict=full))
        learner.step = step


def _moment(learner, name, key):
    p = learner.trained[name]
    state = learner.optimizer.state.get(p, {})
    return state[key].detach() if key in state else torch.zeros_like(p)


def _free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
