"""Entry point of ludus's PyTorch learner worker: `python3 ludus_worker.py --socket PATH`, or under torchrun
(`torchrun --nproc_per_node N ludus_worker.py --socket PATH`). See docs/scale-out.md."""

import sys

try:
    import torch  # noqa: F401
except ImportError:
    import json

    print(json.dumps({"error": {"code": "TORCH_UNAVAILABLE", "message": f"torch is not importable by {sys.executable} (Debian: apt-get install python3-torch; elsewhere: pip install torch, or point --python at an interpreter that has it)"}}), flush=True)
    sys.exit(3)

from ludus_torch.worker import main

if __name__ == "__main__":
    sys.exit(main())
