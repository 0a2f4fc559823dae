"""The worker's loop: rank 0 accepts the door's one connection on a Unix socket and answers each request; under
torchrun every request is first shared with the other ranks, which run it too and answer nothing."""

import argparse
import hashlib
import json
import math
import os
import shutil
import socket
import sys
import traceback

import torch

from . import WorkerError
from .channel import receive, send
from .learner import Learner
from .parallel import Context
from .safetensors import read_tensors, tensor_bytes, write_tensors

DTYPES = {"f32": torch.float32, "i32": torch.int32}
OUT_OF_MEMORY = (MemoryError, getattr(torch.cuda, "OutOfMemoryError", MemoryError))


def number(x):
    """A float JSON can carry: non-finite values by name, as the trainer wire sends them."""
    return x if math.isfinite(x) else ("NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity"))


def tensors_of(header, blobs):
    out = {}
    for (name, dims, dtype), blob in zip(header.get("tensors", []), blobs):
        flat = torch.frombuffer(bytearray(blob), dtype=DTYPES[dtype]) if blob else torch.empty(0, dtype=DTYPES[dtype])
        out[name] = flat.reshape(dims)
    return out


def encode(tensors):
    names = sorted(tensors)
    return [[n, list(tensors[n].shape), "f32"] for n in names], [tensor_bytes(tensors[n].float()) for n in names]


def fingerprint(tensors):
    """sha256 over names, dims and float32 bytes in name order (engine/remote/trainer-wire.ts fingerprint)."""
    h = hashlib.sha256()
    for name in sorted(tensors):
        t = tensors[name]
        h.update(f"{name}:{'x'.join(str(d) for d in t.shape)};".encode())
        h.update(tensor_bytes(t.float()))
    return h.hexdigest()


class Worker:
    def __init__(self, context):
        self.context = context
        self.models = {}

    def model(self, header):
        learner = self.models.get(header["model"])
        if learner is None:
            raise WorkerError("MODEL_NOT_SERVED", f"model \"{header['model']}\" is not held by the torch worker")
        return learner

    def handle(self, header, blobs):
        op = header["op"]
        sent = tensors_of(header, blobs)
        if op == "hello":
            return {"torch": torch.__version__, "python": sys.version.split()[0], "world": self.context.world, "device": self.context.device, "strategy": self.context.strategy, "pid": os.getpid(), "cuda": torch.cuda.is_available()}, []
        if op == "memory":
            import resource

            peak = {"rss_peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}
            if self.context.device.startswith("cuda"):
                peak["cuda_peak_mb"] = round(torch.cuda.max_memory_allocated() / 2**20)
            return peak, []
        if op == "create":
            weights = {}
            for read in header["reads"]:
                weights.update(read_tensors(read["file"], read["names"])[0])
            lora = header.get("lora")
            if lora is not None:
                lora = {**lora, "tensors": sent}
            learner = Learner(header, weights, lora, self.context)
            del weights
            self.models[header["model"]] = learner
            params = learner.tensors("param")
            return {"trainable_parameters": sum(t.numel() for t in params.values()), "fingerprint": fingerprint(params)}, []
        learner = self.model(header)
        if op == "forward_backward":
            r0, r1 = self.context.rows(header["rows"])
            batch = {name: t[r0:r1].to(self.context.device) for name, t in sent.items()}
            sums = learner.forward_backward(batch, header["knobs"])
            return {k: number(v) if isinstance(v, float) else v for k, v in sums.items()}, []
        if op == "optim_step":
            result = learner.optim_step(header.get("lr"))
            return {**result, "grad_norm": number(result["grad_norm"])}, []
        if op == "get":
            names, data = encode(learner.tensors(header["kind"]))
            return {"step": learner.step, "tensors": names}, data
        if op == "set":
            params = {n[2:]: t for n, t in sent.items() if n.startswith("p.")}
            if params:
                self.context.load_full(learner, "param", params)
            if "step" in header:
                self.context.load_optimizer(learner, header["step"], {n[2:]: t for n, t in sent.items() if n.startswith("m.")}, {n[2:]: t for n, t in sent.items() if n.startswith("v.")})
            return {"step": learner.step, "fingerprint": fingerprint(learner.tensors("param"))}, []
        if op == "write":
            kinds = {kind: learner.tensors(kind) for kind in {e[1] for e in header["entries"]}}
            if self.context.rank == 0:
                chosen = {}
                for stored, kind, name, flat in header["entries"]:
                    t = kinds[kind][name]
                    chosen[stored] = (t.reshape(-1) if flat else t).float()
                write_tensors(header["path"], chosen, header.get("metadata"))
            return {"fingerprint": fingerprint(kinds["param"]) if "param" in kinds else None}, []
        if op == "read":
            by_kind = {"param": {}, "m": {}, "v": {}}
            for f in header["files"]:
                stored, _ = read_tensors(f["path"], [e[0] for e in f["entries"]])
                for name_in_file, kind, name in f["entries"]:
                    by_kind[kind][name] = stored[name_in_file]
            for name, p in learner.trained.items():
                for kind, read in by_kind.items():
                    if name not in read or read[name].numel() != p.numel():
                        raise WorkerError("CHECKPOINT_TENSOR_SHAPE", f"{'tensor' if kind == 'param' else 'moment ' + kind + ' of'} \"{name}\": {'not stored' if name not in read else f'{read[name].numel()} values, expected {p.numel()}'}")
            self.context.load_full(learner, "param", {n: t.reshape(learner.trained[n].shape) for n, t in by_kind["param"].items()})
            self.context.load_optimizer(learner, header["step"], by_kind["m"], by_kind["v"])
            return {"step": learner.step, "fingerprint": fingerprint(learner.tensors("param"))}, []
        if op == "fingerprint":
            return {"fingerprint": fingerprint(learner.tensors("param"))}, []
        if op == "unload":
            del self.models[header["model"]]
            return {}, []
        raise WorkerError("REQUEST_INVALID", f"no operation \"{op}\"")

    def answer(self, header, blobs):
        try:
            return self.handle(header, blobs)
        except WorkerError as error:
            return {"error": {"code": error.code, "message": error.message}}, []
        except OUT_OF_MEMORY as error:
            return {"error": {"code": "MEMORY_INSUFFICIENT", "message": f"{header.get('op')}: out of memory on {self.context.device} ({str(error).splitlines()[0] if str(error) else 'host'})"}}, []
        except Exception:  # a defect: logged here, reported to the door without internals
            traceback.print_exc(file=sys.stderr)
            return {"error": {"code": "ENGINE_RUN_FAILED", "message": f"{header.get('op')}: the torch worker failed (see its log)"}}, []


def refuse(code, message):
    """A refusal before the channel is up: one JSON line on stdout, which the door reads as the start's answer."""
    print(json.dumps({"error": {"code": code, "message": message}}), flush=True)
    sys.exit(3)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="ludus torch worker")
    parser.add_argument("--socket", required=True, help="the Unix socket rank 0 listens on for the door")
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--strategy", default="ddp", choices=["ddp", "fsdp"])
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args(argv)
    device = args.device if args.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        refuse("DEVICE_UNAVAILABLE", f"--device cuda, but torch {torch.__version__} sees no CUDA device")
    try:
        context = Context(device, args.strategy, args.threads)
    except WorkerError as error:
        refuse(error.code, error.message)
    worker = Worker(context)
    if context.rank != 0:
        while True:
            message = context.share(None)
            if message is None:
                return 0
            worker.answer(*message)
    old = os.umask(0o077)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(args.socket)
    os.umask(old)
    listener.listen(1)
    print(json.dumps({"ready": True, "socket": args.socket, "pid": os.getpid(), "torch": torch.__version__, "world": context.world}), flush=True)
    conn, _ = listener.accept()
    listener.close()
    try:
        while True:
            message = receive(conn)
            if message is None or message[0].get("op") == "shutdown":
                break
            context.share(message)
            reply, data = worker.answer(*message)
            send(conn, reply, data)
    finally:
        context.share(None)
        conn.close()
        _remove_socket(args.socket)
    return 0


def _remove_socket(path):
    """The socket, and the private folder the door made for this worker (ludus-torch-*), which a door killed with
    SIGKILL could not remove itself."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.basename(folder).startswith("ludus-torch-"):
        shutil.rmtree(folder, ignore_errors=True)
    else:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
