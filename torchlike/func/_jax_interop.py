"""Modules as pure JAX functions: ``to_jax(module) -> (apply_fn, params)``.

``apply_fn(params, *arrays) -> arrays`` runs the module with its parameters replaced by the given JAX
arrays (``functional_call``), so it works under ``jax.jit``, ``jax.grad``, ``jax.vmap``,
``jax.checkpoint`` and with any optax optimizer.  Buffers (BatchNorm running stats) are split out
explicitly with ``buffers=True``, like Flax NNX's split/merge: then
``apply_fn(params, buffers, *arrays) -> (outputs, new_buffers)``.
"""
from __future__ import annotations

from .._device import CPU
from ..tensor import Tensor
from ._common import inner, plain, to_arrays, to_tensors
from ._module_state import functional_call

__all__ = ["to_jax"]


def to_jax(module, *, buffers=False):
    """Split ``module`` into a pure JAX ``apply_fn`` and its parameters as a dict of ``jax.Array``.

    >>> import jax, torchlike
    >>> from torchlike.func import to_jax
    >>> lin = torchlike.nn.Linear(3, 1)
    >>> apply_fn, params = to_jax(lin)
    >>> g = jax.grad(lambda p, x: apply_fn(p, x).sum())(params, jax.numpy.ones((2, 3), "float32"))
    >>> g["weight"].tolist()
    [[2.0, 2.0, 2.0]]
    """
    params = {k: v.detach()._value for k, v in module.named_parameters()}
    bufs = {k: v._value for k, v in module.named_buffers() if v is not None}

    def _run(p, b, args, kwargs):
        pt = {k: Tensor._wrap(v, CPU) for k, v in p.items()}
        bt = {k: Tensor._wrap(v, CPU) for k, v in b.items()}
        with inner("to_jax"):
            out = functional_call(module, (pt, bt), tuple(to_tensors(list(args))), to_tensors(dict(kwargs)))
        return plain(to_arrays(out)), {k: t._value for k, t in bt.items()}

    if buffers:
        def apply_fn(params, buffers, *args, **kwargs):
            return _run(params, buffers, args, kwargs)
        return apply_fn, params, bufs

    def apply_fn(params, *args, **kwargs):
        current = {k: v._value for k, v in module.named_buffers() if v is not None}
        return _run(params, current, args, kwargs)[0]
    return apply_fn, params
