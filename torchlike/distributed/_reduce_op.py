"""``ReduceOp`` and the reduction it names, as a function of one rank's block inside a ``shard_map``.

>>> import torchlike.distributed as dist
>>> dist.ReduceOp.SUM
<RedOpType.SUM: 0>
"""
from __future__ import annotations

import numpy as np

from .._pybind_enum import PybindEnum

__all__ = ["ReduceOp"]


class ReduceOp:
    """Reduction operations (``ReduceOp.SUM`` ...); ``AVG`` divides the sum by the group size."""

    class RedOpType(PybindEnum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7
        PREMUL_SUM = 8
        UNUSED = 9

        def __repr__(self):
            return f"<RedOpType.{self.name}: {self.value}>"

    SUM, AVG, PRODUCT, MIN, MAX = RedOpType.SUM, RedOpType.AVG, RedOpType.PRODUCT, RedOpType.MIN, RedOpType.MAX
    BAND, BOR, BXOR, PREMUL_SUM, UNUSED = (RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR, RedOpType.PREMUL_SUM,
                                           RedOpType.UNUSED)




def _op(op):
    if isinstance(op, ReduceOp.RedOpType):
        return op
    if isinstance(op, str):
        return ReduceOp.RedOpType[op.upper()]
    return ReduceOp.RedOpType(int(op))


def _reducer(op, n, dtype, ax="r"):
    """(reduce a block over axis ``ax``) for ``op``; bool is reduced as int32 and cast back."""
    import jax
    import jax.numpy as jnp
    op = _op(op)
    is_bool = dtype == np.bool_
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and jnp.issubdtype(dtype, jnp.floating):
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")

    def red(a):
        x = a.astype(jnp.int32) if is_bool else a
        if op == ReduceOp.SUM:
            y = jax.lax.psum(x, ax)
        elif op == ReduceOp.AVG:
            s = jax.lax.psum(x, ax)
            y = s // n if jnp.issubdtype(x.dtype, jnp.integer) else s / n
        elif op == ReduceOp.MAX:
            y = jax.lax.pmax(x, ax)
        elif op == ReduceOp.MIN:
            y = jax.lax.pmin(x, ax)
        else:
            g = jax.lax.all_gather(x, ax)
            if op == ReduceOp.PRODUCT:
                y = jnp.prod(g, axis=0, dtype=x.dtype)
            else:
                f = {ReduceOp.BAND: jnp.bitwise_and, ReduceOp.BOR: jnp.bitwise_or,
                     ReduceOp.BXOR: jnp.bitwise_xor}[op]
                y = g[0]
                for i in range(1, n):
                    y = f(y, g[i])
        if is_bool:
            y = (y % 2 != 0) if op == ReduceOp.BXOR else (y != 0)
        return y.astype(a.dtype)
    return red
