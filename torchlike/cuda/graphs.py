"""torchlike.cuda.graphs: CUDA graph capture (torch.cuda.graphs).

XLA compiles whole programs already (``torchlike.compile``), so there is no stream capture: the names
exist for library code that mentions them, ``is_current_stream_capturing()`` is False, and capturing
raises a NotImplementedError pointing to docs/differences.md.

>>> import torchlike
>>> torchlike.cuda.is_current_stream_capturing()
False
"""
from __future__ import annotations

from .._device import _gpus

__all__ = ["CUDAGraph", "graph", "graph_pool_handle", "is_current_stream_capturing", "make_graphed_callables"]

_MSG = ("CUDA graph capture is not implemented in torchlike: compile the step with torchlike.compile instead "
        "(see docs/differences.md)")


def is_current_stream_capturing() -> bool:
    return False


def graph_pool_handle():
    raise NotImplementedError(_MSG)


class CUDAGraph:
    """A captured CUDA graph (cannot be captured in torchlike)."""

    def __init__(self, keep_graph=False):
        if not _gpus():  # (a CPU-only torch's placeholder class)
            raise RuntimeError("Tried to instantiate dummy base class CUDAGraph")

    def capture_begin(self, pool=None, capture_error_mode="global"):
        raise NotImplementedError(_MSG)

    def capture_end(self):
        raise NotImplementedError(_MSG)

    def replay(self):
        raise NotImplementedError(_MSG)

    def reset(self):
        pass


class graph:
    """``with torch.cuda.graph(g):`` capture context (raises: no capture in torchlike)."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global"):
        self.cuda_graph = cuda_graph

    def __enter__(self):
        raise NotImplementedError(_MSG)

    def __exit__(self, *exc):
        return False


def make_graphed_callables(callables, sample_args, num_warmup_iters=3, allow_unused_input=False, pool=None):
    raise NotImplementedError(_MSG)
