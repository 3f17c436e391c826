"""Views of a ``__torch_dispatch__`` subclass instance as the aten calls torch makes (``aten.t.default``,
``aten.view.default``, ``aten.select.int``, ``aten.slice.Tensor``, ...), and the backward of each such view node (torch's formula, as aten calls that reach the subclass again).

torchlike's view ops describe a view as a step of its view chain (``_views``); ``subclass_view`` turns the step
back into torch's call(s). Each call goes to the modes and then the subclass (``_aten_calls._emit``); calling
``func`` inside ``__torch_dispatch__`` runs the view on what the subclass passes (its wrapped tensor).
"""
from __future__ import annotations

from .._creation import zeros
from . import _aten_backward as _ab, _aten_calls

__all__ = ["subclass_view", "VIEW_NODES", "step_call"]

_op = _aten_calls._overload   # an aten overload by name (some, like select_backward, torchlike runs under no name)
_emit = _aten_calls._emit
_END = 9223372036854775807


def _slice(x, d, a, b, st=1):
    return x[(slice(None),) * d + (slice(a, b, st),)]


def _index_calls(t, idx):
    """A basic index (``_views``' normalised parts: int, ``("s", start, stop, step)``, None) as torch's chain of
    ``select``/``slice``/``unsqueeze`` calls, left to right."""
    d = 0
    for e in idx:
        if e is None:
            t = _emit(_op("unsqueeze", "default"), lambda x, i: x.unsqueeze(i), t, d)
            d += 1
        elif type(e) is int:
            t = _emit(_op("select", "int"), lambda x, i, j: x.select(i, j), t, d, e)
        else:
            _, a, b, st = e
            if a is None and b is None and st is None:
                d += 1
                continue
            args = (t, d, 0 if a is None else a, _END if b is None else b) + (() if st in (None, 1) else (st,))
            t = _emit(_op("slice", "Tensor"), _slice, *args)
            d += 1
    return t


def step_call(t, step, name):
    """View ``step`` (``_views``' form) of instance ``t`` as torch's aten call(s); returns what the subclass
    returns."""
    kind = step[0]
    if kind == "reshape":
        tag = step[2] if len(step) > 2 else None
        if tag is not None and tag[0] == "unsqueeze":
            return _emit(_op("unsqueeze", "default"), lambda x, d: x.unsqueeze(d), t, tag[1])
        if tag is not None and tag[0] == "squeeze":
            dims = list(tag[1])
            if name == "SqueezeBackward0":
                return _emit(_op("squeeze", "default"), lambda x: x.squeeze(), t)
            if name == "SqueezeBackward1" and len(dims) == 1:
                return _emit(_op("squeeze", "dim"), lambda x, d: x.squeeze(d), t, dims[0])
            return _emit(_op("squeeze", "dims"), lambda x, ds: x.squeeze(tuple(ds)), t, dims)
        return _emit(_op("view", "default"), lambda x, s: x.view(s), t, list(step[1]))
    if kind == "permute":
        perm = tuple(step[1])
        if name == "TBackward0":
            return _emit(_op("t", "default"), lambda x: x.t(), t)
        swapped = [i for i, p in enumerate(perm) if i != p]
        if name == "TransposeBackward0" and len(swapped) in (0, 2):
            d0, d1 = swapped if swapped else (0, 0)
            return _emit(_op("transpose", "int"), lambda x, i, j: x.transpose(i, j), t, d0, d1)
        return _emit(_op("permute", "default"), lambda x, p: x.permute(p), t, list(perm))
    if kind == "expand":
        return _emit(_op("expand", "default"), lambda x, s: x.expand(s), t, list(step[1]))
    if kind == "index":
        return _index_calls(t, step[1])
    if kind == "alias":
        return _emit(_op("alias", "default"), lambda x: x.view_as(x), t)
    if kind == "diagonal":
        return _emit(_op("diagonal", "default"), lambda x, o, a, b: x.diagonal(o, a, b), t, *step[1:4])
    if kind == "as_strided":
        return _emit(_op("as_strided", "default"), lambda x, sz, sd, off=None: x.as_strided(sz, sd, off), t,
                     list(step[1]), list(step[2]), step[3])
    if kind == "unfold":
        return _emit(_op("unfold", "default"), lambda x, d, s, st: x.unfold(d, s, st), t, *step[1:4])
    raise NotImplementedError(f"torchlike: the view {kind!r} of a __torch_dispatch__ tensor subclass is not "
                              f"supported (see docs/differences.md)")


def subclass_view(t, step, name):
    return step_call(t, step, name)


# --- backward of the view nodes: aten call str -> (*args) -> (node name, grad -> input grad) ---------------------
def _inverse(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return inv


def _select_back(g, shape, d, i):
    out = zeros(shape, dtype=g.dtype, device=g.device)
    out.select(d, i).copy_(g)
    return out


def _slice_back(g, shape, d, a, b, st):
    out = zeros(shape, dtype=g.dtype, device=g.device)
    _slice(out, d, a, b, st).copy_(g)
    return out


_select_back.plain = _slice_back.plain = True   # (they compute from their arguments: _aten_backward._plain_kernel)


def _squeeze_back(shape):
    def back(g):
        for d, n in enumerate(shape):
            if n == 1 and g.ndim < len(shape):
                g = _ab._unsqueeze(g, d)
        return g
    return back


def _call(op, compute, *args):
    return lambda g: _ab.call(op, compute, g, *args)


VIEW_NODES = {
    "aten.t.default": lambda x: ("TBackward0", _ab._t),
    "aten.transpose.int": lambda x, d0, d1: ("TransposeBackward0", lambda g: _ab._transpose(g, d0, d1)),
    "aten.permute.default": lambda x, p: ("PermuteBackward0", _call(_op("permute", "default"), lambda a, q: a.permute(q),
                                                                     _inverse([d % x.ndim for d in p]))),
    "aten.view.default": lambda x, s: ("ViewBackward0", lambda g, sh=tuple(x.shape): _ab._view(g, sh)),
    "aten._unsafe_view.default": lambda x, s: ("UnsafeViewBackward0",
                                               lambda g, sh=tuple(x.shape): _ab._view(g, sh)),
    "aten.expand.default": lambda x, s: ("ExpandBackward0", lambda g, sh=tuple(x.shape): _ab.sum_to(g, sh)),
    "aten.unsqueeze.default": lambda x, d: ("UnsqueezeBackward0", _call(_op("squeeze", "dim"), lambda a, i: a.squeeze(i),
                                                                         d % (x.ndim + 1))),
    "aten.squeeze.default": lambda x: ("SqueezeBackward0", _squeeze_back(tuple(x.shape))),
    "aten.squeeze.dim": lambda x, d: ("SqueezeBackward1", _squeeze_back(tuple(x.shape))),
    "aten.squeeze.dims": lambda x, d: ("SqueezeBackward2", _squeeze_back(tuple(x.shape))),
    "aten.select.int": lambda x, d, i: ("SelectBackward0", _call(_op("select_backward", "default"), _select_back,
                                                                 list(x.shape), d, i)),
    "aten.slice.Tensor": lambda x, d=0, a=0, b=_END, st=1: (
        "SliceBackward0", _call(_op("slice_backward", "default"), _slice_back, list(x.shape), d, a, b, st)),
    "aten.alias.default": lambda x: ("AliasBackward0", lambda g: g),
}
