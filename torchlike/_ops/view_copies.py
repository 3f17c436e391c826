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

from ._util import register, wrap_dim
from .registry import write_out
from . import views as _v
from .._tape import relabel
from .basic import clone

__all__ = []


# --- X_copy -----------------------------------------------------------------------------------------
def _copying(name, view_fn):
    def fn(input, *args, **kwargs):
        r = view_fn(input, *args, **kwargs)
        # torch's node is the view's, suffixed: TBackward0_copy (its child here is the view node itself)
        view_node = type(getattr(r[0] if isinstance(r, tuple) and r else r, "_grad_fn", None)).__name__
        if isinstance(r, tuple):
            return relabel(tuple(clone(t) for t in r), view_node + "_copy", only="CloneBackward0")
        return relabel(clone(r), view_node + "_copy", only="CloneBackward0")
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
