"""ludus's PyTorch learner: the worker process behind `ludus serve-trainer --backend torch`.

It needs only torch (>= 1.13). The TypeScript side (native/torch/*.ts) builds every batch, mask, advantage and loss
weight, lays out every file it writes, and talks to rank 0 of this worker over a local socket; the worker holds the
models, computes ludus's objective with autograd, applies AdamW, and reads and writes safetensors files.
"""

class WorkerError(Exception):
    """A refusal with one of ludus's stable error codes (core/errors.ts), sent back to the door as such."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message
