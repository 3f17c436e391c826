"""The ``X_copy`` family (torch.t_copy, view_copy, ...: a view op followed by a copy, so the result owns its
storage; same values and gradient, node ``TBackward0_copy``) and ``narrow_copy``.

    >>> import torchlike
    >>> x = torchlike.arange(6.).reshape(2, 3)
    >>> y = torchlike.t_copy(x)
    >>> y._base is None, tuple(y.shape)
    (True, (3, 2))
"""
from __future__ import annotations

import functools

from .._errors import argument_error
from ._util import Tensor, register, wrap_dim
from .registry import write_out
from . import views as _v
from . import complex_ops as _complex
from .._grad_mode import is_grad_enabled
from .._tape import relabel
from .basic import clone
from .. import _memory_format as _mfmt

__all__ = []


# --- X_copy -----------------------------------------------------------------------------------------
def _copying(name, view_fn):
    def fn(input, *args, **kwargs):
        if not isinstance(input, Tensor):  # (alias_copy(-7) would make a tensor of it: torch's parser error)
            raise argument_error(input, "Tensor", "input", name, 1)
        r = view_fn(input, *args, **kwargs)
        # torch's node is the view's, suffixed: TBackward0_copy (its child here is the view node itself)
        view_node = type(getattr(r[0] if isinstance(r, tuple) and r else r, "_grad_fn", None)).__name__
        # (the copy is contiguous, as torch's: ``t_copy(x).stride()`` is row-major, not the view's)
        if isinstance(r, tuple):
            return relabel(tuple(clone(t, memory_format=_mfmt.contiguous_format) for t in r), view_node + "_copy",
                           only="CloneBackward0")
        return relabel(clone(r, memory_format=_mfmt.contiguous_format), view_node + "_copy", only="CloneBackward0")
    fn.__name__ = name
    fn.__doc__ = (f"``torch.{name[:-5]}`` followed by a copy (torch.{name}).\n\n    >>> import torchlike\n"
                  f"    >>> torchlike.{name} is not None\n    True\n    ")
    return fn


def _view(input, *shape):
    return _v.view(input, *shape)


def _alias(input):
    return _v.alias_op(input)


# torch's out= form of the copies returning several tensors fills a list and returns None
_LIST_OUT = {"split_copy": "split_copy_Tensor_out()", "split_with_sizes_copy": "split_with_sizes_copy_out",
             "unbind_copy": "unbind_copy_int_out"}


def _list_out(name, fn):
    @functools.wraps(fn)
    def with_out(*args, out=None, **kwargs):
        r = fn(*args, **kwargs)
        if out is None:
            return r
        if len(out) != len(r):
            raise RuntimeError(f"{_LIST_OUT[name]} expected an out= argument of size {len(r)}, got size {len(out)}")
        for o, t in zip(out, r):
            write_out(o, t.detach(), name)
        return None
    return with_out


for _name, _f in [("view_copy", _view), ("t_copy", _v.t), ("permute_copy", _v.permute),
                  ("transpose_copy", _v.transpose), ("expand_copy", _v.expand), ("squeeze_copy", _v.squeeze),
                  ("unsqueeze_copy", _v.unsqueeze), ("unbind_copy", _v.unbind), ("unfold_copy", _v.unfold),
                  ("alias_copy", _alias), ("as_strided_copy", _v.as_strided), ("diagonal_copy", _v.diagonal),
                  ("split_with_sizes_copy", _v.split_with_sizes), ("split_copy", _v.split),
                  ("detach_copy", lambda t: t.detach())]:
    _fn = _copying(_name, _f)
    register(_name, method=False, out=_name not in _LIST_OUT,
             promote="none")(_list_out(_name, _fn) if _name in _LIST_OUT else _fn)


@register(out=True, promote="none")
def narrow_copy(input, dim, start, length):
    """A copy of ``input.narrow(dim, start, length)`` (torch.narrow_copy, with its own checks).

    >>> import torchlike
    >>> torchlike.narrow_copy(torchlike.arange(5), 0, 1, 2).tolist()
    [1, 2]
    """
    nd = input.ndim
    if nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if dim >= nd:
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an enhancement request "
                           "to PyTorch.)")
    d = wrap_dim(dim, nd)
    n = input.shape[d]
    start = int(start)
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if start < 0:
        start += n
    if length < 0 or start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return clone(_v.narrow(input, d, start, length))


# --- the remaining view copies: select, slice, view_as_real/complex, and the sparse accessors -----------
def _slice(input, dim=0, start=None, end=None, step=1):
    d = wrap_dim(dim, input.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    idx = (("s", None, None, None),) * d + (("s", start, end, int(step)),)
    return _v.view_step(input, ("index", idx), name="SliceBackward0")


def _view_as_complex(input):
    if input.requires_grad and is_grad_enabled():  # torch's X_copy of a complex view has no derivative
        raise RuntimeError("view_as_complex_copy does not support automatic differentiation for outputs with "
                           "complex dtype.")
    return _complex.view_as_complex(input)


for _name, _f in [("select_copy", _v.select), ("slice_copy", _slice),
                  ("view_as_real_copy", _complex.view_as_real), ("view_as_complex_copy", _view_as_complex)]:
    register(_name, method=False, out=True, promote="none")(_copying(_name, _f))

# torch's layout names in its "expected ... layout but got X" errors
_LAYOUT_NAMES = {"torch.strided": "Strided", "torch.sparse_coo": "Sparse", "torch.sparse_csr": "SparseCsr",
                 "torch.sparse_csc": "SparseCsc", "torch.sparse_bsr": "SparseBsr", "torch.sparse_bsc": "SparseBsc"}
# accessor -> (the layouts it reads, how torch names them in its error)
_SPARSE_ACCESSORS = {
    "indices": (("torch.sparse_coo",), "sparse coordinate tensor"),
    "values": (("torch.sparse_coo", "torch.sparse_csr", "torch.sparse_csc", "torch.sparse_bsr", "torch.sparse_bsc"),
               "sparse tensor"),
    "crow_indices": (("torch.sparse_csr", "torch.sparse_bsr"), "sparse row compressed tensor"),
    "col_indices": (("torch.sparse_csr", "torch.sparse_bsr"), "sparse row compressed tensor"),
    "ccol_indices": (("torch.sparse_csc", "torch.sparse_bsc"), "sparse column compressed tensor"),
    "row_indices": (("torch.sparse_csc", "torch.sparse_bsc"), "sparse column compressed tensor"),
}


def _sparse_copy(accessor):
    layouts, what = _SPARSE_ACCESSORS[accessor]
    name = accessor + "_copy"

    def fn(input):
        layout = repr(input.layout)
        if layout == "torch.sparse_coo":  # torch 2.13 registers these copies for strided and compressed layouts
            raise NotImplementedError(f"Could not run 'aten::{name}' with arguments from the 'SparseCPU' backend. "
                                      "This could be because the operator doesn't exist for this backend, or was "
                                      "omitted during the selective/custom build process (if using custom build).")
        if layout not in layouts:
            raise RuntimeError(f"{accessor} expected {what} layout but got {_LAYOUT_NAMES.get(layout, layout)}")
        return clone(getattr(input, accessor)())
    fn.__name__ = name
    fn.__doc__ = (f"A copy of ``input.{accessor}()`` (torch.{name}).\n\n    >>> import torchlike\n"
                  f"    >>> torchlike.{name} is not None\n    True\n    ")
    return fn


for _acc in _SPARSE_ACCESSORS:
    register(_acc + "_copy", method=False, out=True, promote="none", differentiable=False)(_sparse_copy(_acc))


@register(method=False, promote="none")
def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """torch.slice_inverse (functionalization's helper, the inverse of ``slice``): the storage of the slice
    ``input`` seen with the geometry of ``src`` (its base), i.e.
    ``input.as_strided(src.size(), src.stride(), src.storage_offset())``.

    >>> import torchlike
    >>> base = torchlike.arange(5.)
    >>> torchlike.slice_inverse(base[2:4], torchlike.zeros(5), 0, 2, 4).tolist()
    [0.0, 1.0, 2.0, 3.0, 4.0]
    """
    return _v.as_strided(input, tuple(src.shape), tuple(src.stride()), src.storage_offset())
