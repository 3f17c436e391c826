"""Built-in DDP comm hooks: ``hook(process_group, bucket) -> future`` of the averaged flat gradients.

>>> from torchlike.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
>>> callable(allreduce_hook)
True
"""
from __future__ import annotations

from .... import _dtype
from ....nn.parallel.distributed import _allreduce_avg, _Future
from ... import _process_group as _pg
from ..._collectives import all_reduce

__all__ = ["allreduce_hook", "bf16_compress_hook", "fp16_compress_hook"]


def allreduce_hook(process_group, bucket):
    """Divide the bucket by the group size and all-reduce it (sum): DDP's default averaging."""
    g = process_group if process_group is not None else _pg.GroupMember.WORLD
    return _allreduce_avg(g, bucket)


def _compress_hook(dtype_name):
    def hook(process_group, bucket):
        g = process_group if process_group is not None else _pg.GroupMember.WORLD
        buf = bucket.buffer()
        c = (buf / g.size()).to(getattr(_dtype, dtype_name))
        work = all_reduce(c, group=g, async_op=True)
        fut = _Future(c, work)
        return fut.then(lambda f: f.wait().to(buf.dtype))
    return hook


fp16_compress_hook = _compress_hook("float16")
fp16_compress_hook.__name__ = "fp16_compress_hook"
fp16_compress_hook.__doc__ = "All-reduce the bucket in float16 (halves the bytes sent), then cast back."
bf16_compress_hook = _compress_hook("bfloat16")
bf16_compress_hook.__name__ = "bf16_compress_hook"
bf16_compress_hook.__doc__ = "All-reduce the bucket in bfloat16, then cast back."
