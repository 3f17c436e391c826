"""``torchlike.compile(dynamic=True)``: trace once with symbolic leading dimensions.

Every tensor argument's dim 0 of size >= 2 becomes a symbol of ``jax.export``'s shape polymorphism;
dims of equal size at the tracing call share one symbol (so ``input.shape[0] == target.shape[0]`` holds
symbolically), sizes 0 and 1 stay static as in torch.  The traced program is exported once and
re-used for every size: a new batch size costs XLA one compilation of the already-traced program, no
Python re-trace.  Code that needs a concrete size (``int(x.shape[0])`` in arithmetic JAX can't decide
symbolically) makes the symbolic trace fail; the call then falls back to a per-shape program.

>>> import torchlike as torch
>>> f = torch.compile(lambda x: (x * 2).sum(0), dynamic=True)
>>> f(torch.ones(3, 2)).tolist(), f(torch.ones(5, 2)).tolist()
([6.0, 6.0], [10.0, 10.0])
>>> f.compile_count
1
"""
from __future__ import annotations

import jax

from ..tensor import Tensor

__all__ = ["dynamic_key", "symbolic_specs", "export_program"]


def _sym_classes(leaves):
    """For each tensor leaf, the symbol class of its dim 0 (None when it stays static)."""
    classes, seen = [], {}
    for x in leaves:
        if isinstance(x, Tensor) and x.ndim >= 1 and x.shape[0] >= 2:
            classes.append(seen.setdefault(x.shape[0], len(seen)))
        else:
            classes.append(None)
    return classes


def dynamic_key(key, leaves):
    """The guard key of a symbolic program: dim-0 sizes replaced by their symbol class."""
    struct, leaf_keys, *rest = key
    new = []
    for k, cls in zip(leaf_keys, _sym_classes(leaves)):
        if cls is not None:
            k = (k[0], (("sym", cls),) + tuple(k[1][1:])) + tuple(k[2:])
        new.append(k)
    return (struct, tuple(new), *rest, "dynamic")


def symbolic_specs(leaves, tensor_pos):
    """ShapeDtypeStructs for the tensor arguments, with shared symbolic dim-0 sizes."""
    classes = _sym_classes(leaves)
    n = max((c for c in classes if c is not None), default=-1) + 1
    syms = jax.export.symbolic_shape(",".join(f"b{i}" for i in range(n))) if n else ()
    specs = []
    for i in tensor_pos:
        x = leaves[i]._value
        shape = tuple(x.shape)
        if classes[i] is not None:
            shape = (syms[classes[i]],) + shape[1:]
        specs.append(jax.ShapeDtypeStruct(shape, x.dtype))
    return specs


def export_program(jaxpr, consts, arg_specs):
    """``jax.export`` of the traced jaxpr: constants (lifted state) keep static shapes, arguments are
    symbolic.  Returns a function ``(consts, args) -> outputs`` that any concrete sizes can call."""
    def pure(cs, args):
        return jax.core.eval_jaxpr(jaxpr, cs, *args)
    const_specs = [jax.ShapeDtypeStruct(c.shape, c.dtype) for c in consts]
    exported = jax.export.export(jax.jit(pure))(const_specs, list(arg_specs))

    def call(cs, args):
        return exported.call(list(cs), list(args))
    return call
