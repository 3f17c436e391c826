"""The ops a nested tensor supports, reached through ``NestedTensor.__torch_function__``: each handler computes
with the dense values (pointwise ops, ``linear``, ``softmax``, ``layer_norm``, reductions over regular
dimensions) or component by component (``matmul``/``bmm`` of two nested tensors, attention), so autograd runs
through torchlike's ordinary ops and gradients reach the values.  Any other op raises torch's error naming it.

    >>> import torchlike as torch
    >>> nt = torch.nested.nested_tensor([torch.ones(2, 3), torch.ones(1, 3)], layout=torch.jagged)
    >>> torch.nn.functional.linear(nt, torch.ones(4, 3)).shape
    torch.Size([2, j..., 4])
"""
from __future__ import annotations

import copy

import torchlike
from torchlike.tensor import Tensor

from ._tensor import OP_HANDLER, NestedTensor, strided_from

__all__ = ["dispatch", "HANDLERS", "POINTWISE"]

HANDLERS = {}

# elementwise ops: computed on the values (every nested argument with the same structure)
POINTWISE = frozenset("""
abs absolute acos arccos acosh arccosh add addcdiv addcmul angle asin arcsin asinh arcsinh atan arctan atan2
arctan2 atanh arctanh bitwise_and bitwise_not bitwise_or bitwise_xor ceil clamp clamp_min clamp_max clip
copysign cos cosh deg2rad digamma div divide erf erfc erfinv exp exp2 expm1 float_power floor floor_divide fmod
frac hypot i0 isfinite isinf isnan lerp lgamma log log10 log1p log2 logaddexp logical_and logical_not
logical_or logical_xor logit maximum minimum mul multiply nan_to_num neg negative pow rad2deg reciprocal
remainder round rsqrt sigmoid sign sgn sin sinc sinh sqrt square sub subtract tan tanh true_divide trunc where
relu relu6 gelu silu mish elu selu celu leaky_relu hardtanh hardsigmoid hardswish softplus softsign tanhshrink
logsigmoid threshold dropout alpha_dropout eq ne lt le gt ge greater less greater_equal less_equal not_equal
clone contiguous to type float double half bfloat16 int long bool cpu cuda type_as zero_ fill_ copy_
__add__ __radd__ __iadd__ __sub__ __rsub__ __isub__ __mul__ __rmul__ __imul__ __truediv__ __rtruediv__
__itruediv__ __div__ __rdiv__ __pow__ __rpow__ __neg__ __abs__ __eq__ __ne__ __lt__ __le__ __gt__ __ge__
__and__ __or__ __xor__ __invert__ __floordiv__ __rfloordiv__ __mod__
""".split())


def _is_nt(a):
    return isinstance(a, NestedTensor)


def _nts(args, kwargs):
    """The nested tensors among the arguments, also inside list/tuple arguments (``torch.cat([nt, nt])``)."""
    out = []
    for a in (*args, *kwargs.values()):
        if _is_nt(a):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(b for b in a if _is_nt(b))
    return out


# the pointwise ops torch 2.13 has no nested kernel for (NotImplementedError), found by calling each: by layout,
# then by form (u: any call; n: with a second nested tensor; s: with a number)
_MISSING = {
    "strided": {
        "u": frozenset("""
acos acosh angle arccos arccosh arcsin arcsinh arctan arctanh asin asinh atan atanh bitwise_not ceil celu cosh
deg2rad digamma elu erf erfc erfinv exp exp2 expm1 floor frac hardsigmoid hardswish hardtanh i0 isfinite
leaky_relu lgamma log log10 log1p log2 logit logsigmoid mish nan_to_num rad2deg reciprocal relu6 round rsqrt
selu sigmoid sign sinc sinh softplus square tan trunc""".split()),
        "n": frozenset("""
arctan2 atan2 bitwise_and bitwise_or bitwise_xor clamp_max clamp_min copysign float_power floor_divide fmod ge
greater greater_equal gt hypot le less less_equal logaddexp logical_and logical_or logical_xor lt maximum minimum
ne not_equal pow remainder""".split()),
        "s": frozenset("""
bitwise_and bitwise_or bitwise_xor clamp_max clamp_min copysign float_power floor_divide fmod le less less_equal
lt ne not_equal pow remainder""".split()),
    },
    "jagged": {"u": frozenset(("hardswish", "logsigmoid")), "n": frozenset(("floor_divide",)),
               "s": frozenset(("floor_divide", "mish"))},
}


def _torch_lacks(name, layout, args, nts):
    sets = _MISSING["jagged" if layout is torchlike.jagged else "strided"]
    if name in sets["u"]:
        return True
    if len(nts) > 1:
        return name in sets["n"]
    return len(args) > 1 and isinstance(args[1], (int, float, bool)) and name in sets["s"]


_DUNDER_OPS = {"invert": "bitwise_not", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
               "floordiv": "floor_divide", "mod": "remainder", "truediv": "div", "neg": "neg", "abs": "abs"}


def _op_name(func):
    """torch's aten name of ``func`` (``x.sigmoid_`` -> ``sigmoid_``, ``~x`` -> ``bitwise_not``)."""
    n = getattr(func, "__name__", None) or repr(func)
    if n.startswith("__") and n.endswith("__"):
        n = n[2:-2]
        if n not in _DUNDER_OPS and n[:1] in "ri" and n[1:] in ("add", "sub", "mul", "truediv", "div", "pow",
                                                              "and", "or", "xor", "floordiv", "mod", "matmul"):
            n = n[1:]
        n = _DUNDER_OPS.get(n, n)
    return n


def _unsupported(func, nt):
    return _unsupported_named(_op_name(func), nt)


def _unsupported_named(name, nt):
    if "." not in name:
        name += ".default" if nt._layout is torchlike.jagged else ""
    if nt._layout is torchlike.jagged:
        return NotImplementedError(f"aten.{name}")
    return NotImplementedError(f"Could not run 'aten::{name}' with arguments from the 'NestedTensorCPU' backend. "
                               "This could be because the operator doesn't exist for this backend, or was omitted "
                               "during the selective/custom build process (if using custom build).")


def dispatch(func, args, kwargs):
    """Run ``func`` on arguments of which at least one is a nested tensor."""
    name = getattr(func, "__name__", "")
    base = name.rstrip("_") if not name.startswith("__") else name
    h = HANDLERS.get(name) or HANDLERS.get(base)
    nts = _nts(args, kwargs)
    if h is not None:
        return h(func, args, kwargs, nts)
    if name == "__rsub__" and nts[0]._layout is torchlike.strided:
        raise _unsupported_named("rsub.Scalar", nts[0])
    if name in POINTWISE or base in POINTWISE:
        if _torch_lacks(_op_name(func).rstrip("_"), nts[0]._layout, args, nts):
            raise _unsupported(func, nts[0])
        return _pointwise(func, args, kwargs, nts)
    raise _unsupported(func, nts[0])


def handles(*names):
    def put(fn):
        for n in names:
            HANDLERS[n] = fn
        return fn
    return put


# ---- pointwise -----------------------------------------------------------------------------------
def _shape_str(a):
    return repr(a.shape) if not _is_nt(a) or a._layout is torchlike.jagged else "nested"


def _pointwise(func, args, kwargs, nts):
    first = nts[0]
    name = _op_name(func).rstrip("_")
    for other in nts[1:]:
        if other._layout is not first._layout:
            raise RuntimeError("Internal error: NestedTensorImpl doesn't support sizes. Please file an issue.")
        if first._layout is torchlike.jagged:
            if other._nint != first._nint or other._ragged_idx != first._ragged_idx:
                raise RuntimeError(f"cannot call binary pointwise function {name}.Tensor with inputs of shapes "
                                   f"{tuple(first._jagged_shape())} and {tuple(other._jagged_shape())}")
        elif other._sizes != first._sizes:
            raise RuntimeError(f"{name} does not support broadcasting when given a NestedTensor")

    def conv(a):
        if _is_nt(a):
            return a._values
        if isinstance(a, Tensor) and a.dim() > 0:
            _check_dense_operand(first, a, name)
        return a

    out = func(*[conv(a) for a in args], **{k: conv(v) for k, v in kwargs.items()})
    fname = getattr(func, "__name__", "")
    dunder = fname.startswith("__")
    if (fname.endswith("_") and not dunder) or (dunder and fname.startswith("__i") and fname != "__invert__"):
        return args[0]  # (in place: the values were written)
    if isinstance(out, Tensor):
        return first._like(out)
    return out


def _check_dense_operand(nt, dense, name):
    """A dense operand of a pointwise op broadcasts over the regular dimensions only."""
    if nt._layout is not torchlike.jagged:
        raise RuntimeError("Expected both self and other to be nested, but got a nested self and non-nested other")
    nd, dd = nt.dim(), dense.dim()
    ok = dd < nd
    if ok:
        lead = nd - dd
        ok = lead >= 1 and (nt._ragged_idx < lead or dense.shape[nt._ragged_idx - lead] == 1)
    elif dd == nd:  # (B or 1, ..., 1 at the ragged dim, ...): torch broadcasts it per component
        ok = dense.shape[nt._ragged_idx] == 1 and dense.shape[0] == 1
    if not ok:
        raise RuntimeError(f"cannot call binary pointwise function {name}.Tensor with inputs of shapes "
                           f"{nt.shape!r} and {dense.shape!r}")


# ---- helpers ---------------------------------------------------------------------------------------
def _arg(args, kwargs, i, name, default=None):
    if len(args) > i:
        return args[i]
    return kwargs.get(name, default)


def _values_dim(nt, dim, op):
    """The values' dimension for the nested tensor's regular dimension ``dim``."""
    nd = nt.dim()
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    d = dim % nd
    if d == 0:
        raise RuntimeError(f"{op}(): not supported when reducing across the batch dimension for NestedTensor")
    if nt._layout is torchlike.jagged and d == nt._ragged_idx:
        raise RuntimeError(f"{op}(): not supported when reducing along the ragged dimension for NestedTensor")
    return d - 1


def _per_component(fn, *nts):
    """``fn`` on each component (of every nested tensor, in step), re-nested with the first's layout."""
    first = nts[0]
    outs = [fn(*cs) for cs in zip(*(n._components() for n in nts))]
    if first._layout is torchlike.jagged:
        return _jagged_like(first, outs)
    return strided_from(outs)


def _jagged_like(nt, outs):
    """Components whose ragged dimension is ``nt``'s, concatenated back into values with ``nt``'s offsets."""
    r = nt._ragged_idx - 1
    return NestedTensor._make(torchlike.cat(outs, r), torchlike.jagged, offsets=nt._offsets, lengths=None,
                              ragged_idx=nt._ragged_idx, nint=nt._nint)


# ---- handlers ------------------------------------------------------------------------------------
@handles("linear")
def _linear(func, args, kwargs, nts):
    x, w, b = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "weight"), _arg(args, kwargs, 2, "bias")
    if _is_nt(w) or _is_nt(b):
        raise _unsupported(func, nts[0])
    if x._layout is torchlike.jagged:
        if x._ragged_idx == x.dim() - 1 or not x.is_contiguous():
            raise ValueError("NestedTensor linear_default(input: jt, weight: t, bias: t?): expected input to be a "
                             "contiguous jagged layout NestedTensor")
        return x._like(func(x._values, w, b))
    return _per_component(lambda c: func(c, w, b), x)


@handles("softmax", "log_softmax")
def _softmax(func, args, kwargs, nts):
    x = args[0]
    dim = _arg(args, kwargs, 1, "dim")
    rest = dict(kwargs)
    rest.pop("dim", None)
    op = func.__name__
    if x._layout is torchlike.jagged:
        if dim is not None and -x.dim() <= dim < x.dim() and dim % x.dim() == x._ragged_idx:
            if x._ragged_idx > 1:
                raise RuntimeError(f"{op}(): not supported when reducing along the ragged dimension for "
                                   "ragged_idx > 1 for NestedTensor")
            # (each component's own softmax along its ragged dimension)
            return _jagged_like(x, [func(c, 0, *args[2:], **rest) for c in x._components()])
        d = _values_dim(x, dim, op)
        return x._like(func(x._values, d, *args[2:], **rest))
    if op == "log_softmax":  # (torch's strided nested tensors have no log_softmax kernel)
        raise _unsupported_named("_log_softmax", x)
    d = dim % x.dim()
    if d == 0:
        raise RuntimeError(f"Cannot apply {op} across nested dimension 0")
    return _per_component(lambda c: func(c, d - 1, *args[2:], **rest), x)


@handles("layer_norm")
def _layer_norm(func, args, kwargs, nts):
    x, shape = args[0], _arg(args, kwargs, 1, "normalized_shape")
    w, b = _arg(args, kwargs, 2, "weight"), _arg(args, kwargs, 3, "bias")
    eps = _arg(args, kwargs, 4, "eps", 1e-5)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if x._layout is torchlike.jagged:  # (on the values as torch's: over the ragged dim, its shape check fails)
        return x._like(func(x._values, shape, w, b, eps))
    if w is None or b is None:
        raise ValueError("NestedTensor layer_norm requires weight and bias")
    return _per_component(lambda c: func(c, shape, w, b, eps), x)


@handles("sum", "mean", "amax", "amin")
def _reduce(func, args, kwargs, nts):
    x = args[0]
    dim = _arg(args, kwargs, 1, "dim")
    keepdim = _arg(args, kwargs, 2, "keepdim", False)
    extra = {k: v for k, v in kwargs.items() if k not in ("dim", "keepdim")}
    op = func.__name__
    if dim is None:
        if x._layout is torchlike.jagged:
            return func(x._values, **extra)
        raise _unsupported(func, x)
    if x._layout is not torchlike.jagged:
        if not keepdim:
            raise RuntimeError("NestedTensor always requires keepdim=True for now.")
        dims = [dim] if isinstance(dim, int) else list(dim)
        return _per_component(lambda c: func(c, [d % x.dim() - 1 for d in dims], True, **extra), x)
    nd = x.dim()
    dims = sorted({d % nd for d in ([dim] if isinstance(dim, int) else dim)})
    if 0 in dims:
        if x._ragged_idx not in dims:
            raise RuntimeError(f"{op}(): reducing along the batch dimension but not the ragged dimension is not "
                               "supported for nested tensors")
        raise _unsupported(func, x)
    if x._ragged_idx in dims:  # a dense result: each component reduced, stacked
        if len(dims) != 1:
            raise RuntimeError(f"{op}(): reducing along a ragged and non-batch dimension is not supported for "
                               "nested tensors")
        r = x._ragged_idx - 1
        return torchlike.stack([func(c, r, keepdim, **extra) for c in x._components()])
    return x._like(func(x._values, [d - 1 for d in dims], keepdim, **extra))


@handles("transpose", "swapaxes", "swapdims")
def _transpose(func, args, kwargs, nts):
    x = args[0]
    d0, d1 = _arg(args, kwargs, 1, "dim0"), _arg(args, kwargs, 2, "dim1")
    nd = x.dim()
    d0, d1 = d0 % nd, d1 % nd
    if x._layout is not torchlike.jagged:
        if 0 in (d0, d1):
            raise RuntimeError("Nested tensor dimension 0 cannot be transposed")
        return _per_component(lambda c: c.transpose(d0 - 1, d1 - 1), x)
    if 0 in (d0, d1):
        raise ValueError("Transpose is not supported on the batch dimension for jagged NT")
    r = x._ragged_idx
    r = d1 if r == d0 else d0 if r == d1 else r
    return x._like(x._values.transpose(d0 - 1, d1 - 1), ragged_idx=r)


@handles("matmul", "bmm", "__matmul__")
def _matmul(func, args, kwargs, nts):
    a, b = args[0], args[1]
    op = "bmm" if func.__name__ == "bmm" else "matmul"
    if _is_nt(a) and _is_nt(b):
        if a._layout is not b._layout or a._batch() != b._batch():
            raise RuntimeError(f"{op}(): not supported between inputs of shapes {_shape_str(a)} and "
                               f"{_shape_str(b)}")
        if a._layout is torchlike.jagged:
            if a._ragged_idx != b._ragged_idx or a._nint != b._nint or a._ragged_idx >= a.dim() - 2:
                # (torch's jagged bmm is its matmul, and says so)
                raise RuntimeError(f"matmul(): not supported between inputs of shapes {tuple(a.shape)} and "
                                   f"{b.shape!r}")
            return a._like(torchlike.matmul(a._values, b._values))
        if op == "bmm" and (a.dim() != 3 or b.dim() != 3):
            raise RuntimeError("batch1 must be a 3D tensor")
        return _per_component(torchlike.matmul, a, b)
    if _is_nt(a) and isinstance(b, Tensor) and b.dim() <= 2 and op == "matmul":
        if a._layout is torchlike.jagged:
            if a._ragged_idx == a.dim() - 1:
                raise RuntimeError(f"matmul(): not supported between inputs of shapes {tuple(a.shape)} and "
                                   f"{b.shape!r}")
            return a._like(torchlike.matmul(a._values, b))
        raise RuntimeError("Expected both to be nested, but got a nested self and non-nested other")
    raise _unsupported(func, nts[0])


@handles("scaled_dot_product_attention")
def _sdpa(func, args, kwargs, nts):
    names = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa")
    p = {n: _arg(args, kwargs, i, n) for i, n in enumerate(names)}
    q, k, v = p["query"], p["key"], p["value"]
    if not (_is_nt(q) and _is_nt(k) and _is_nt(v)) or q._layout is not torchlike.jagged:
        raise RuntimeError("scaled_dot_product_attention(): expected query, key and value to all be jagged "
                           "layout NestedTensors")
    if p["is_causal"] or not all(t.transpose(1, 2).is_contiguous() for t in (q, k, v)):
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found.")
    if p["attn_mask"] is not None:
        raise RuntimeError("scaled_dot_product_attention(): attn_mask is not supported for nested tensors "
                           "(torchlike)")
    opts = {"dropout_p": p["dropout_p"] or 0.0, "is_causal": bool(p["is_causal"]), "scale": p["scale"]}

    outs = [func(qc.unsqueeze(0), kc.unsqueeze(0), vc.unsqueeze(0), **opts).squeeze(0)
            for qc, kc, vc in zip(q._components(), k._components(), v._components())]
    if q._ragged_idx == 1:
        return _jagged_like(q, outs)
    # (B, H, j, D): values kept as torch's, a transposed view of the (total, H, D) buffer
    r = q._ragged_idx - 1
    values = torchlike.cat([o.movedim(r, 0) for o in outs]).movedim(0, r)
    return q._like(values)


@handles("unbind")
def _unbind(func, args, kwargs, nts):
    return args[0].unbind(_arg(args, kwargs, 1, "dim", 0))


@handles("__getitem__")
def _getitem(func, args, kwargs, nts):
    x, i = args
    if isinstance(i, int):
        comps = x._components()
        return comps[i]
    raise RuntimeError("slice(): not supported for NestedTensor on dim=0")


@handles("__iter__")
def _iter(func, args, kwargs, nts):
    return iter(args[0]._components())


@handles("view", "reshape", "unflatten", "flatten")
def _reshape(func, args, kwargs, nts):
    x = args[0]
    name = func.__name__
    if x._layout is not torchlike.jagged:
        raise _unsupported(func, x)
    nd, r = x.dim(), x._ragged_idx
    if name in ("unflatten", "flatten"):
        if name == "unflatten":
            dims = [_arg(args, kwargs, 1, "dim") % nd]
        else:
            dims = [_arg(args, kwargs, 1, "start_dim", 0) % nd, _arg(args, kwargs, 2, "end_dim", -1) % nd]
        if min(dims) == 0 or min(dims) <= r <= max(dims):
            raise _unsupported(func, x)
        if name == "unflatten":
            return x._like(x._values.unflatten(dims[0] - 1, _arg(args, kwargs, 2, "sizes")))
        return x._like(x._values.flatten(dims[0] - 1, dims[1] - 1),
                       ragged_idx=r if r < dims[0] else r - (dims[1] - dims[0]))
    shape = list(args[1] if len(args) == 2 and isinstance(args[1], (tuple, list)) else args[1:])
    if len(shape) <= r or shape[0] not in (x._batch(), -1) or not (shape[r] == -1 or shape[r] == x._nint):
        raise RuntimeError(f"{name}(): cannot change the batch or ragged dimension of a NestedTensor")
    vshape = [x._values.shape[r - 1] if i == r else int(s) for i, s in enumerate(shape)][1:]
    return x._like(getattr(x._values, name)(vshape))


@handles("chunk", "split")
def _chunk(func, args, kwargs, nts):
    x = args[0]
    n, dim = _arg(args, kwargs, 1, "chunks" if func.__name__ == "chunk" else "split_size_or_sections"), \
        _arg(args, kwargs, 2, "dim", 0)
    if x._layout is not torchlike.jagged:
        raise _unsupported(func, x)
    d = _values_dim(x, dim, func.__name__)
    return tuple(x._like(p) for p in func(x._values, n, d))


@handles("to_padded_tensor")
def _to_padded(func, args, kwargs, nts):
    return args[0].to_padded_tensor(*args[1:], **kwargs)



@handles("cat", "concat", "concatenate")
def _cat(func, args, kwargs, nts):
    ts, dim = _arg(args, kwargs, 0, "tensors"), _arg(args, kwargs, 1, "dim", 0)
    x = nts[0]
    if x._layout is not torchlike.jagged or not all(_is_nt(t) for t in ts):
        raise _unsupported(func, x)
    d = dim % x.dim()
    if d == 0:
        raise RuntimeError("cat(): not supported for NestedTensor on dim=0")
    if d == x._ragged_idx:
        raise RuntimeError("cat(): not supported for NestedTensor on the ragged dim")
    for t in ts[1:]:
        if t._nint != x._nint or t._ragged_idx != x._ragged_idx:
            raise RuntimeError("cat(): expected all nested tensors to have matching ragged structures outside "
                               "of the concatenated dim")
    return x._like(func([t._values for t in ts], d - 1))


@handles("unsqueeze", "squeeze")
def _unsqueeze(func, args, kwargs, nts):
    x, name = args[0], func.__name__
    dim = _arg(args, kwargs, 1, "dim")
    if x._layout is not torchlike.jagged or dim is None:
        raise _unsupported(func, x)
    nd = x.dim() + (name == "unsqueeze")
    d = dim % nd
    if d == 0:
        raise RuntimeError(f"{name}(): not supported for NestedTensor on dim=0")
    r = x._ragged_idx
    if name == "squeeze" and d == r:
        raise RuntimeError("squeeze(): not supported for NestedTensor on ragged dim")
    if name == "squeeze" and x._values.shape[d - 1] != 1:
        return x
    r = r + (d <= r) if name == "unsqueeze" else r - (d < r)
    return x._like(func(x._values, d - 1), ragged_idx=r)


@handles("select")
def _select(func, args, kwargs, nts):
    x = args[0]
    dim, index = _arg(args, kwargs, 1, "dim"), _arg(args, kwargs, 2, "index")
    if x._layout is not torchlike.jagged:
        raise _unsupported(func, x)
    d = dim % x.dim()
    if d == 0:
        return x._components()[index]
    if d == x._ragged_idx:
        raise RuntimeError("select(): not supported for NestedTensor on ragged dim")
    r = x._ragged_idx
    return x._like(x._values.select(d - 1, index), ragged_idx=r - (d < r))


@handles("embedding")
def _embedding(func, args, kwargs, nts):
    x = _arg(args, kwargs, 0, "input")
    if x is not nts[0] or len(nts) != 1 or x._layout is not torchlike.jagged:
        raise _unsupported(func, nts[0])
    return x._like(func(x._values, *args[1:], **{k: v for k, v in kwargs.items() if k != "input"}))


@handles("max", "min", "argmax", "argmin", "all", "any", "prod")
def _full_reduce(func, args, kwargs, nts):
    x = args[0]
    if x._layout is not torchlike.jagged or len(args) > 1 or kwargs:
        raise _unsupported(func, x)
    return func(x._values)


@handles("numpy", "tolist")
def _host(func, args, kwargs, nts):
    if func.__name__ == "tolist":
        raise RuntimeError(".tolist() is not supported for tensor subclasses, got NestedTensor")
    raise RuntimeError(".numpy() is not supported for tensor subclasses.")


@handles("__bool__", "item", "__float__", "__int__", "__index__")
def _scalar(func, args, kwargs, nts):
    x = args[0]
    n = x.numel()
    if func.__name__ == "__bool__" and n != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    if n != 1:
        raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
    return func(x._values)


@handles("__deepcopy__")
def _deepcopy(func, args, kwargs, nts):
    x = args[0]
    return x._like(copy.deepcopy(x._values, _arg(args, kwargs, 1, "memo") or {}))


OP_HANDLER[0] = dispatch
