"""Entry point of ludus's PyTorch learner worker: `python3 ludus_worker.py --socket PATH`, or under torchrun
(`torchrun --nproc_per_node N ludus_worker.py --socket PATH`). See docs/scale-out.md.

A missing or old torch is refused here, before anything of it is used, as one JSON line on stdout that the door reads
as a coded error."""

import json
import sys

MIN_TORCH = (1, 13)


def refuse(code, message):
    print(json.dumps({"error": {"code": code, "message": message}}), flush=True)
    sys.exit(3)


def release(version):
    """(major, minor) of a torch version string such as 1.13.0a0+git or 2.4.1+cu121."""
    parts = []
    for piece in version.split("+")[0].split(".")[:2]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


try:
    import torch
except ImportError as error:
    refuse("TORCH_UNAVAILABLE", f"torch is not importable by {sys.executable} ({error}): on Debian apt-get install python3-torch; elsewhere pip install torch, or name an interpreter that has it with --python")

if release(getattr(torch, "__version__", "0.0")) < MIN_TORCH:
    refuse("TORCH_UNAVAILABLE", f"torch {torch.__version__} (at {sys.executable}) is older than {'.'.join(map(str, MIN_TORCH))}, the oldest the torch backend supports")

from ludus_torch.worker import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
