"""Move values between torch (the oracle) and torchlike.

``Converter`` turns a torch SampleInput's contents into torchlike objects (recursively), keeping
aliasing (the same torch tensor becomes the same torchlike tensor) and remembering which leaves
require grad, so the harness can ask both frameworks for gradients with respect to the same inputs.
``to_torch`` turns a torchlike result back into torch objects so ``torch.testing.assert_close``
can compare it.  ``rebind`` re-creates a function written against ``torch`` (the OpInfo lambdas) so
that its global ``torch`` means ``torchlike``.
"""
from __future__ import annotations

import dataclasses
import types

import numpy as np
import torch

import torchlike


# Strict mode (conformance.strict) sets this: every converted tensor with more than one element becomes a
# non-contiguous view (torch's ``noncontiguous_like``: the values sit in ``base[..., 1]`` of a buffer one
# dimension larger), on the torch side in ``clone_torch`` and on the torchlike side in ``Converter``, as
# torch's test_noncontiguous_samples does.  The default run never sets it.
NONCONTIGUOUS = False


class Unconvertible(Exception):
    """A sample holds something torchlike cannot represent (sparse tensor, meta device, ...)."""


_TL_DTYPES = {}
for _n in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
           "complex32", "complex64", "complex128", "uint16", "uint32", "uint64"):
    if hasattr(torch, _n) and hasattr(torchlike, _n):
        _TL_DTYPES[getattr(torch, _n)] = getattr(torchlike, _n)
_TORCH_DTYPES = {v.name if hasattr(v, "name") else str(v): k for k, v in _TL_DTYPES.items()}


def tl_dtype(d):
    try:
        return _TL_DTYPES[d]
    except KeyError:
        raise Unconvertible(f"dtype {d}") from None


def torch_dtype(d):
    name = getattr(d, "name", None) or str(d).replace("torch.", "")
    try:
        return _TORCH_DTYPES[name]
    except KeyError:
        return getattr(torch, name)


def _np_of(t: torch.Tensor):
    t = t.detach().resolve_conj().resolve_neg()
    if t.dtype in (torch.bfloat16, torch.complex32):
        return t.to(torch.float32 if t.dtype is torch.bfloat16 else torch.complex64).numpy()
    return t.numpy()


class Converter:
    """One conversion of one sample: torch objects -> torchlike objects with aliasing preserved."""

    def __init__(self, grad=True, views=False):
        self.grad = grad  # False: inputs never require grad (method / in-place / error checks)
        self.views = views  # True (error inputs): a view of another argument stays a view of its converted base
        self.memo = {}
        self.leaves = []  # [(torch_tensor, torchlike_tensor)] for inputs that require grad

    def tensor(self, t: torch.Tensor):
        key = id(t)
        if key in self.memo:
            return self.memo[key][1]
        if t.layout != torch.strided:
            raise Unconvertible(f"non-strided input ({t.layout})")
        if t.device.type != "cpu":
            raise Unconvertible(f"non-cpu input (device {t.device.type})")
        if type(t) not in (torch.Tensor, torch.nn.Parameter):
            raise Unconvertible(f"tensor subclass {type(t).__name__}")
        if t.dim() > 64:  # numpy's limit (error_inputs of amax/amin test 65 dims)
            raise Unconvertible(f"{t.dim()}-dimensional input (numpy allows 64)")
        if t.is_quantized:
            raise Unconvertible("quantized input")
        base = t._base
        if base is not None and self.views and not t.requires_grad and not base.requires_grad \
                and not NONCONTIGUOUS and base.layout == torch.strided and not base.is_quantized:
            # a view (``out=x[:3]`` beside ``x``, an expanded ``out``) stays a view of its converted base, so
            # that ops which check aliasing and overlap see what torch sees
            b = self.tensor(base)
            r = b.as_strided(tuple(t.shape), tuple(t.stride()), t.storage_offset() - base.storage_offset())
            self.memo[key] = (t, r)
            return r
        dt = tl_dtype(t.dtype)
        arr = np.array(_np_of(t)).astype(dt.np, copy=False)
        r = torchlike.from_numpy(arr) if dt.name not in ("bfloat16", "complex32") else \
            torchlike.tensor(arr, dtype=dt)
        if r.dtype is not dt:
            r = r.to(dt)
        if NONCONTIGUOUS:
            r = _tl_noncontiguous(r)
        if t.requires_grad and self.grad:
            r.requires_grad_(True)
            self.leaves.append((t, r))
        self.memo[key] = (t, r)  # keep t alive so id() stays unique
        return r

    def __call__(self, x):
        if isinstance(x, torch.Tensor):
            return self.tensor(x)
        if x is None or isinstance(x, (bool, int, float, complex, str, bytes, np.ndarray, np.generic,
                                       slice, type(Ellipsis))):
            return x
        if isinstance(x, torch.dtype):
            return tl_dtype(x)
        if isinstance(x, torch.Size):
            return torchlike.Size(tuple(x))
        if isinstance(x, torch.device):
            if x.type != "cpu":
                raise Unconvertible(f"device {x}")
            return torchlike.device(str(x))
        if isinstance(x, torch.layout):
            if x != torch.strided:
                raise Unconvertible(f"layout {x}")
            return getattr(torchlike, "strided", None)
        if isinstance(x, torch.memory_format):
            return getattr(torchlike, str(x).replace("torch.", ""), None)
        if isinstance(x, torch.Generator):
            return torchlike.Generator()
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            return type(x)(*(self(v) for v in x))
        if isinstance(x, (tuple, list)):
            return type(x)(self(v) for v in x)
        if isinstance(x, dict):
            return {k: self(v) for k, v in x.items()}
        if isinstance(x, (types.FunctionType, types.BuiltinFunctionType)):
            return rebind(x) if _is_testing_fn(x) else x
        if isinstance(x, torch.nn.Module) and not any(True for _ in x.parameters()) \
                and not any(True for _ in x.buffers()) and hasattr(torchlike.nn, type(x).__name__):
            # a parameter-free module argument (PairwiseDistance as a distance_function): same class,
            # same plain attributes
            cls = getattr(torchlike.nn, type(x).__name__)
            m = cls.__new__(cls)
            torchlike.nn.Module.__init__(m)
            for k, v in vars(x).items():
                if not k.startswith("_") and isinstance(v, (bool, int, float, str, type(None), tuple)):
                    object.__setattr__(m, k, v)
            return m
        mod = type(x).__module__ or ""
        if mod.startswith("torch") and dataclasses.is_dataclass(x) and hasattr(torchlike.nn, type(x).__name__):
            # option records such as nn.LinearCrossEntropyOptions: same fields, converted values
            fields = {f.name: self(getattr(x, f.name)) for f in dataclasses.fields(x)}
            return getattr(torchlike.nn, type(x).__name__)(**fields)
        if mod.startswith("torch"):
            raise Unconvertible(f"argument of type {type(x).__module__}.{type(x).__qualname__}")
        return x


def _fill_value(is_float, is_bool):
    return float("nan") if is_float else (True if is_bool else 12)


def _tl_noncontiguous(r):
    """torchlike counterpart of torch's ``noncontiguous_like`` (same layout: ``base[..., 1]``)."""
    if r.numel() <= 1:
        return r
    base = torchlike.empty(tuple(r.shape) + (2,), dtype=r.dtype)
    base[..., 0] = _fill_value(r.is_floating_point() or r.is_complex(), r.dtype is torchlike.bool)
    base[..., 1] = r
    return base[..., 1]


def _torch_noncontiguous(c):
    if c.numel() <= 1 or not c.is_contiguous():
        return c
    base = c.new_empty(tuple(c.shape) + (2,))
    base[..., 0] = _fill_value(c.is_floating_point() or c.is_complex(), c.dtype is torch.bool)
    base[..., 1] = c
    return base[..., 1]


def clone_torch(x, memo=None):
    """A fresh copy of a torch sample structure (tensors cloned, leaves kept as leaves, aliasing kept)."""
    memo = {} if memo is None else memo
    if isinstance(x, torch.Tensor):
        if id(x) not in memo:
            if x.layout != torch.strided:
                memo[id(x)] = x
            else:
                c = x.detach().clone()
                if NONCONTIGUOUS:
                    c = _torch_noncontiguous(c)
                memo[id(x)] = c.requires_grad_(x.requires_grad) if x.is_floating_point() or x.is_complex() \
                    else c
        return memo[id(x)]
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(clone_torch(v, memo) for v in x))
    if isinstance(x, (tuple, list)):
        return type(x)(clone_torch(v, memo) for v in x)
    if isinstance(x, dict):
        return {k: clone_torch(v, memo) for k, v in x.items()}
    return x


def to_torch(x):
    """A torchlike result as torch objects (tensors via numpy; named tuples become plain tuples)."""
    if isinstance(x, torchlike.Tensor):
        arr = np.asarray(x._value)
        if x.dtype.name == "bfloat16":
            return torch.from_numpy(arr.astype(np.float32)).to(torch.bfloat16)
        if x.dtype.name == "complex32":
            return torch.from_numpy(arr.astype(np.complex64)).to(torch.complex32)
        return torch.from_numpy(np.array(arr))
    if isinstance(x, torchlike.Size):
        return torch.Size(tuple(x))
    if isinstance(x, torchlike.dtype):
        return torch_dtype(x)
    if isinstance(x, (tuple, list)):
        return tuple(to_torch(v) for v in x) if isinstance(x, tuple) else [to_torch(v) for v in x]
    if isinstance(x, dict):
        return {k: to_torch(v) for k, v in x.items()}
    if isinstance(x, np.generic):
        return x.item()
    return x


def flatten(x):
    """Leaves of a nested output (tuples/lists/dicts), in order."""
    if isinstance(x, (tuple, list)):
        out = []
        for v in x:
            out.extend(flatten(v))
        return out
    if isinstance(x, dict):
        out = []
        for k in x:
            out.extend(flatten(x[k]))
        return out
    return [x]


# --- running torch-written helper functions on torchlike ----------------------------------------
def _is_testing_fn(f):
    return isinstance(f, types.FunctionType) and (getattr(f, "__module__", "") or "").startswith(
        "torch.testing._internal")


def _no_seed_wrapper(op, *args, **kwargs):
    return op(*args, **kwargs)


_GLOBALS_CACHE: dict = {}


def _tl_globals(g):
    key = id(g)
    if key not in _GLOBALS_CACHE:
        # globals of the rebound function: ``torch`` is torchlike, ``F`` is torchlike.nn.functional
        ng = dict(g)
        ng["torch"] = torchlike
        ng["F"] = getattr(torchlike.nn, "functional", None)
        ng["wrapper_set_seed"] = _no_seed_wrapper
        _GLOBALS_CACHE[key] = (g, ng)
    return _GLOBALS_CACHE[key][1]


_REBOUND: dict = {}


def rebind(f):
    """``f`` (a function from torch's testing modules) with ``torch`` meaning ``torchlike``."""
    if not _is_testing_fn(f):
        return f
    if f in _REBOUND:
        return _REBOUND[f]
    cells = None
    if f.__closure__:
        cells = tuple(types.CellType(rebind(c.cell_contents) if _cell_ok(c) and _is_testing_fn(c.cell_contents)
                                     else _map_closure_value(c)) for c in f.__closure__)
    g = types.FunctionType(f.__code__, _tl_globals(f.__globals__), f.__name__, f.__defaults__, cells)
    g.__kwdefaults__ = f.__kwdefaults__
    _REBOUND[f] = g
    return g


def _cell_ok(c):
    try:
        c.cell_contents
        return True
    except ValueError:
        return False


def _map_closure_value(c):
    if not _cell_ok(c):
        return None
    v = c.cell_contents
    if v is torch:
        return torchlike
    if isinstance(v, torch.dtype):
        return _TL_DTYPES.get(v, v)
    if isinstance(v, types.BuiltinFunctionType) and (getattr(v, "__module__", "") or "").startswith("torch"):
        return resolve_name(v.__name__) or v
    return v


def resolve_name(name):
    """torchlike's ``name`` (dotted, e.g. 'linalg.norm', 'nn.functional.relu'), or None."""
    obj = torchlike
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj
