"""The torchlike Tensor: a mutable handle on an immutable ``jax.Array``.

Mutation rebinds the handle (and, for a view, functionally rewrites its root: see ``_views``).
This module is layer 1 (docs/DEVELOPING.md): it imports only layer 0 and knows no op.  Operators, methods
and in-place variants are attached from the op table (``_ops``); ``_inplace_update`` (the end of every
in-place op) and ``_refresh_recorded`` (re-reading a stale view with autograd) are installed by
``_mutation`` (layer 2), since both record ops.
"""
from __future__ import annotations

import collections
import numbers
import weakref

import jax
import numpy as np

from . import _dtype, _grad_mode, _trace_hooks, _views
from . import _memory_format as _mfmt
from . import _profiler_state as _prof
from ._grad_mode import InferenceVersion
from ._errors import GraphBreak, argument_error, is_tracer as _is_tracer, no_arguments_error, to_host, warn_at_caller
from ._errors import tp_name as _tp_name
from ._missing import TENSOR_NAMES_MISSING, MissingAPI
from ._device import CPU, host_to_jax, of_array
from ._hooks import RemovableHandle
from ._tape import AccumulateGrad, NoGradViewSink
from ._class_parts import built_from
from ._tensor_casts import TensorCasts
from ._tensor_devices import TensorDevices
from ._tensor_inference import TensorInference
from ._tensor_metadata import TensorMetadata, wrap_dim as _wrap_dim
from ._tensor_wrapper import TensorWrapper, note_dispatch
from ._tensor_messages import FN_VIEW_INPLACE, MULTI_VIEW_INPLACE, NON_LEAF_GRAD as _NON_LEAF_GRAD, \
    NOGRAD_VIEW_INPLACE as _NOGRAD_VIEW_INPLACE
# (HOST_MAX: _creation's import path; _rebuild_pickled: the path pickles name)
from ._tensor_pickling import HOST_MAX, TensorPickling, _rebuild_pickled  # noqa: F401

__all__ = ["Tensor", "Size"]

_state = _grad_mode._state
_INFERENCE_USED = _grad_mode.inference_used  # (so a program that never enters inference mode reads no thread-local)


class Size(tuple):
    """torch.Size: a tuple of ints with torch's repr.

    >>> import torchlike
    >>> torchlike.zeros(2, 3).shape
    torch.Size([2, 3])
    """

    __slots__ = ()

    def __new__(cls, seq=()):
        t = tuple.__new__(cls, seq)
        for v in t:
            if v.__class__ is not int:  # (the common case, all ints, costs one pass)
                return tuple.__new__(cls, [_size_item(v, k) for k, v in enumerate(t)])
        return t

    def __repr__(self):  # (a numpy integer element shows as torch shows it: its number)
        return f"torch.Size({[int(v) if isinstance(v, np.integer) else v for v in self]})"

    def __mul__(self, n):  # ``shape * 2`` and ``(1,) + shape`` are torch.Size too, as torch's
        if not hasattr(type(n), "__index__"):  # (a tuple's words)
            raise TypeError(f"can't multiply sequence by non-int of type '{type(n).__name__}'")
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self)) if isinstance(other, tuple) else NotImplemented

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __reduce__(self):
        return (Size, (tuple(self),))


_tuple_new = tuple.__new__


def _size_item(v, k):
    """An element of ``torch.Size(seq)``: a bool as its int, an integer tensor of one element as its int (as torch
    reads it through __index__); a float, string, None or any other tensor is torch's TypeError; other integer
    likes (numpy ints, symbolic sizes) stay as given."""
    if isinstance(v, bool):
        return int(v)
    bad = isinstance(v, (float, complex, str, bytes, type(None)))
    if isinstance(v, Tensor):
        try:
            return v.__index__()
        except TypeError:
            bad = True
    if bad:
        raise TypeError(f"torch.Size() takes an iterable of 'int' (item {k} is '{type(v).__name__}')")
    return v


# Tensor.grad_dtype set to None: a gradient of any dtype is taken (torch 2.13's grad_dtype)
ANY_GRAD_DTYPE = "any"


def _grad_dtype_error(got, want):
    return (f"attempting to assign a gradient with dtype '{_dtype.C_NAMES.get(got.name, got.name)}' to a tensor with "
            f"grad_dtype '{_dtype.TYPE_NAMES.get(want.name, want.name)}'. The gradient must match the tensor's "
            "grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific "
            "dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
            "gradient may break downstream systems that assume they match.")


def _concrete(x):
    """Whether ``x`` is a concrete ``jax.Array`` (not a tracer, not numpy); its type is remembered."""
    if _is_tracer(x) or not isinstance(x, jax.Array):
        return False
    _CONCRETE.add(type(x))
    return True


_ALIAS_CHAIN = _views.HOST_CHAIN
_DATA_STEP = ("alias", "data")  # ``.data``: an alias whose writes autograd's version check does not see
# ``detach()``: an alias outside the graph; kept in the chains of its views, whose re-reads are never recorded
_DETACH_STEP = ("alias", "detach")
_SUBCLASS_STEP = ("alias", "as_subclass")  # ``as_subclass``: torch's alias(), a view (its ``_base`` is the root)
_DETACH_CHAIN = (_DETACH_STEP,)
_PARAM_CHAIN, _UNTRACKED = (_DETACH_STEP,), ((_DATA_STEP,), _DETACH_CHAIN)  # (_PARAM_CHAIN: see _param_alias)
_SHARED_CHAIN = (("alias", "shared"),)  # a tensor in shared memory (_shared_memory): an alias of its mapping
_NUMPY_CHAIN = (("alias", "numpy"),)  # a tensor sharing a numpy array's memory (_numpy_bridge): the same
_CONCRETE = set()  # array types seen that are concrete jax arrays (a faster check than isinstance)


@built_from(TensorMetadata)
class Tensor(TensorCasts, TensorDevices, TensorPickling, TensorInference, TensorWrapper):
    """A multi-dimensional array with torch semantics, backed by a ``jax.Array``.

    >>> import torchlike
    >>> t = torchlike.tensor([1.0, 2.0], requires_grad=True)
    >>> (t * t).sum().backward()
    >>> t.grad
    tensor([2., 4.])
    """

    __slots__ = ("_x", "_vbase", "_chain", "_seen", "_ver", "_rg", "_grad", "_grad_fn", "_oi", "_acc",
                 "_retains", "_dev", "__weakref__", "__dict__")
    __array_priority__ = 1000
    _rereads = False  # a root whose value a numpy array holds (_numpy_bridge): its views re-read it
    _gdt = None  # grad_dtype where set on a leaf: a dtype, or ANY_GRAD_DTYPE (None was set); None: the dtype
    _st = None  # a root's torch strides where they are not row-major (channels-last, ...: _memory_format)

    # ---- construction -------------------------------------------------------------------------
    def __new__(cls, *args, device=None, dtype=None):
        """Legacy ``torch.Tensor(2, 3)`` (uninitialised float) / ``torch.Tensor([1, 2])`` constructor."""
        from . import _creation  # lazy: the legacy constructor builds through creation (layer 3)
        dt = _dtype.get_default_dtype() if dtype is None else dtype
        # a torch.Size is a shape, any other sequence is data; no arguments at all is an empty tensor
        if len(args) == 1 and (isinstance(args[0], bool) or not isinstance(args[0], (numbers.Integral, Size))):
            src = args[0]
            if isinstance(src, Tensor):  # an alias, where dtype (a typed constructor's) and device are its
                t = _creation.legacy_alias(src, dtype, device)
                return t if cls is Tensor else t._retype(cls)
            if isinstance(src, np.ndarray):  # (shared, as torch's: a float32 array's memory is the tensor's)
                t = _creation.as_tensor(src, dtype=dt, device=device)
            elif hasattr(type(src), "__getitem__") and not isinstance(src, (dict, np.generic)):
                t = _creation.tensor(src, dtype=dt, device=device)
            else:  # (torch's PySequence_Check: a number is not data; torch.Tensor(3) is a size)
                raise TypeError(f"new(): data must be a sequence (got {_tp_name(src)})")
        else:
            shape = args[0] if len(args) == 1 and isinstance(args[0], Size) else args or (0,)
            t = _creation.empty(*(shape or ((),)), dtype=dt, device=device)  # (torch's empty; Size([]) is 0-d)
        if cls is not Tensor:
            t = t._retype(cls)
        return t

    def __init__(self, *args, **kwargs):
        pass

    @classmethod
    def _wrap_where(cls, x):
        """``_wrap`` on the device ``x`` lives on (a gradient or a collective's result, whose device is the
        one its inputs were on)."""
        return cls._wrap(x, of_array(x))

    @classmethod
    def _wrap(cls, x, dev=CPU):
        t = object.__new__(cls)
        t._x = x
        t._vbase = None
        t._chain = None
        t._seen = 0
        t._ver = InferenceVersion([0]) if _INFERENCE_USED[0] and _state.inference else [0]
        t._rg = False
        t._grad = None
        t._grad_fn = None
        t._oi = 0
        t._acc = None
        t._retains = False
        t._dev = dev
        return t

    @staticmethod
    def _make_subclass(cls, data, require_grad=False, dispatch_strides=False, dispatch_device=False,
                       device_for_backend_keys=None):
        """``torch.Tensor._make_subclass``: a new leaf of type ``cls`` sharing ``data``'s values (no history),
        requiring grad as ``require_grad`` says (how ``nn.Parameter``-like subclasses are built)."""
        if not isinstance(data, Tensor):
            raise TypeError(f"_make_subclass(): argument 'data' (position 2) must be Tensor, not "
                            f"{type(data).__name__}")
        t = data.detach()
        if require_grad:  # before the class changes, as torch's C++ does: not through the subclass's own
            t._as_grad_leaf()  # properties and __torch_function__
        note_dispatch(cls)
        return t._as_subclass_shared(cls)

    def as_subclass(self, cls):
        """torch's ``alias()`` as an instance of ``cls``: a view sharing ``self``'s storage (writes through either
        reach the other; ``_base`` is ``self``'s root) and, while autograd records, ``AliasBackward0`` (not a leaf,
        its gradient flows back to ``self``).

        >>> import torchlike
        >>> class Tagged(torchlike.Tensor):
        ...     pass
        >>> a = torchlike.ones(2, requires_grad=True)
        >>> b = a.as_subclass(Tagged)
        >>> type(b).__name__, b.is_leaf, b.grad_fn.name()
        ('Tagged', False, 'AliasBackward0')
        """
        if self._chain is _ALIAS_CHAIN:
            self._settle()  # (a host tensor moves first: its views share its device array)
        grad = self._rg or self._grad_fn is not None
        out = self._alias() if grad and _state.enabled else Tensor._wrap(self._value, self._dev)  # (_mutation's)
        self._make_view(out, _SUBCLASS_STEP)
        if grad and not _state.enabled:
            out._rg = True  # (torch: made under no_grad, a leaf that requires grad)
        note_dispatch(cls)
        return out._as_subclass_shared(cls)

    def _retype(self, cls):
        """``self``'s handle as an instance of ``cls``, not a view: a new tensor made of a class (``Parameter``,
        unpickling, shared memory, the legacy constructor), as torch's ``_make_subclass``."""
        note_dispatch(cls)
        return self._as_subclass_shared(cls)

    def _as_subclass_shared(self, cls):
        """``self``'s handle state (data, autograd history, leaf-ness) as an instance of ``cls``."""
        t = object.__new__(cls)
        for s in Tensor.__slots__:
            if s not in ("__weakref__", "__dict__"):
                object.__setattr__(t, s, getattr(self, s))
        if self._st is not None:  # (a root's torch strides: _memory_format)
            t._st = self._st
        return t

    # ---- the value, views and versions --------------------------------------------------------
    @property
    def _value(self):
        b = self._vbase
        if b is None or self._seen == self._ver[0]:
            return self._x
        self._refresh()
        return self._x

    def _refresh(self):
        """Re-read a view from its root after some alias was written (or read a lazy view the first time:
        from the root's array when it was made, while no alias has been written since)."""
        b = self._vbase
        if self._chain is _ALIAS_CHAIN:  # a host tensor (_from_host) moves to the device: a plain tensor now
            self._settle()
            return
        if self._chain is _SHARED_CHAIN or self._chain is _NUMPY_CHAIN:  # the root reads the mapping / array
            self._x = b._x
            return
        if self._seen == -2 - self._ver[0]:
            p = self._x
            if p.group is not None and self._read_group():
                pass
            elif p.last is not None and len(self._chain) == 1:
                self._x = _views.read_last(p.src, p.last)
            else:
                self._x = _views.chain_fn(self._chain)(p.src)
        elif (b._rg or b._grad_fn is not None) and self._chain and \
                (self._chain[0][0] != "alias" or self._chain[0] is _SUBCLASS_STEP) and _DETACH_STEP not in self._chain:
            self._refresh_recorded()  # a recorded op: installed by _mutation (layer 2)
        else:
            self._x = _views.chain_fn(self._chain)(b._value)
        self._seen = _seen_mark(b, self._ver[0])

    @classmethod
    def _from_host(cls, arr, dev=CPU):
        """A host-resident tensor of the numpy array ``arr`` (which it owns: nothing may write ``arr``
        afterwards), moved to the device by the first op that needs it (``_value``); until then metadata,
        ``item()``, ``tolist()``, ``numpy()``, printing, pickling and collation read ``arr``.  It is an
        alias of a hidden root holding ``arr``, i.e. a lazy view (see ``_lazy_view``): an in-place op or a
        view reads ``_value`` first, so it materialises and keeps torch's semantics."""
        # (both objects built inline, not through _wrap: this runs for every host op's result)
        root = _new(Tensor)
        root._x = arr
        root._vbase = root._chain = root._grad = root._grad_fn = root._acc = None
        root._seen = root._oi = 0
        root._ver = ver = InferenceVersion([0]) if _INFERENCE_USED[0] and _state.inference else [0]
        root._rg = root._retains = False
        root._dev = dev
        out = _new(Tensor)
        out._x = arr  # (``_x`` is the numpy array itself: shape, dtype, ndim and size read it)
        out._vbase = root
        out._chain = _ALIAS_CHAIN
        out._seen = -2
        out._ver = ver
        out._grad = out._grad_fn = out._acc = None
        out._oi = 0
        out._rg = out._retains = False
        out._dev = dev
        return out

    def _settle(self):
        """Make this host tensor a plain device tensor of the same value (its root's array, moved if it is
        still numpy).  Not a write: done outside a trace's records (a concrete array even while tracing), so
        a compiled function sees an ordinary tensor."""
        x = _SLOT_X.__get__(self._vbase)
        if type(x) is np.ndarray:  # a transfer (no program: a new shape compiles nothing)
            arr = x
            x = host_to_jax(x, copy=False, concrete=True, cpu=True)
            if arr.size <= HOST_MAX:  # host reads of its rows (``for i in ix``) read ``arr``: no transfer back
                _views.remember_host(x, arr)
        _SLOT_X.__set__(self, x)
        self._vbase = self._chain = None
        self._seen = self._ver[0]

    def _host_array(self, shared=False):
        """The numpy array of a host-resident tensor (``_from_host``, not yet moved or written), else None.
        Read-only by contract: the tensor owns it.  ``shared``: also the array a tensor shares with numpy
        (``_numpy_bridge``), which its user may write (a reader's current value, not one to keep)."""
        if self._chain is not _ALIAS_CHAIN or self._seen != -2 - self._ver[0]:
            return self._vbase.__dict__["_h"] if shared and self._chain is _NUMPY_CHAIN else None
        x = self._x
        return x if type(x) is np.ndarray else None

    def _read_group(self):
        """Read this lazy view and its still-unread siblings (made together) in one program."""
        p = self._x
        rows = [t for t in (r() for r in p.group) if t is not None and t._seen == self._seen and t._x.src is p.src
                and t._ver is self._ver]
        fn = _views.read_together(rows, ("rows", len(rows)))
        if fn is None:
            return False
        for t, x in zip(rows, fn()):
            t._x = x
            t._seen = self._ver[0]
        return True

    def _make_view(self, out, step):
        """Mark ``out`` (the result of view op ``step`` on self) as a view sharing self's root."""
        root = self._vbase if self._vbase is not None else self
        if (self._chain is _SHARED_CHAIN or self._chain is _NUMPY_CHAIN) and step[0] == "alias":
            out._vbase, out._chain, out._ver, out._seen = root, self._chain, root._ver, -1  # (shared as well)
            return out
        c = self._chain or ()  # (as_strided reads the root: a leading .data/detach() tag stays)
        chain = c + (step,) if step[0] != "as_strided" else (c[:1] if c[:1] in _UNTRACKED else ()) + (step,)
        if chain and chain[0][0] == "alias" and len(chain) > 1 and chain[0] not in (_DATA_STEP, _DETACH_STEP):
            chain = chain[1:]  # (an alias's view is the root's view; one of .data or detach() keeps the tag)
        out._vbase = root
        out._chain = chain
        out._ver = root._ver
        out._seen = _seen_mark(root, root._ver[0])
        if "_multi_view" in self.__dict__ and step[0] != "alias":
            out.__dict__["_multi_view"] = 0  # (a view of split's output: torch refuses its in-place writes too)
        if not _state.enabled and step[0] != "alias" and (self._rg or self._grad_fn is not None) and \
                out._grad_fn is None:
            # torch: a view made under no_grad / inference_mode of a tensor that requires grad requires grad
            # too (a leaf whose gradient goes nowhere); an in-place write to it with grad mode on is refused
            out._rg = True
            out.__dict__["_acc_nograd_view"] = "inference" if _state.inference else "no_grad"
        return out

    def _lazy_view(self, step, shape, last=None):
        """A view of self for the basic index ``step`` (result ``shape``) whose value is computed on first
        use (``torch.stack``/``cat`` of such slices read them all in one program); None where it must be
        computed now: autograd, tracing, JAX transforms, or a view whose root was rebound."""
        if self._chain is _ALIAS_CHAIN:
            self._settle()  # (a host tensor moves first: its views share its device array)
        b = self._vbase
        if b is None:
            root, chain = self, (step,)
        else:
            root, chain = b, self._chain + (step,)
            if self._ver is not b._ver:
                return None
            if chain[0][0] == "alias" and chain[0] != _DATA_STEP:
                chain = chain[1:]
        if root._vbase is not None or root._rereads:  # (a root sharing a numpy array: views re-read it)
            return None
        src = root._x
        if root._rg or self._rg or root._grad_fn is not None or self._grad_fn is not None or \
                Tensor._value is not _PLAIN_VALUE:
            return None
        if type(src) not in _CONCRETE and not _concrete(src):
            return None
        # (built inline, not through _wrap: a batch loader makes ~100 of these per batch)
        out = _new(Tensor)
        # the dtype is self's, not the root's: a view of x.real / x.imag / x.view(dtype) keeps its real dtype
        out._x = _views.Pending(shape, self._x.dtype, src, None, last)
        out._vbase = root
        out._chain = chain
        ver = out._ver = root._ver
        out._seen = -2 - ver[0]
        out._grad = out._grad_fn = out._acc = None
        out._oi = 0
        out._rg = out._retains = False
        out._dev = self._dev
        return out

    @property
    def _version(self):
        v = self._ver  # [writes, writes made through .data] (the second only once there was one)
        if type(v) is InferenceVersion:
            self._inference_version_check()
        return v[0] if len(v) == 1 else v[0] - v[1]

    @property
    def _base(self):
        b = self._vbase
        if b is None or self._chain[0][0] == "alias" and self._chain[0] is not _SUBCLASS_STEP or \
                self._chain[-1] is _DETACH_STEP or self._chain[-1] is _DATA_STEP:  # (detach() of a view: no view)
            return None
        return b

    def _is_view(self):
        return self._base is not None

    def _store(self, new):
        """Replace this tensor's whole value with array ``new`` (a root's, or a root's alias's: a tensor in
        shared memory or sharing a numpy array writes its storage of record), without autograd or versions."""
        if self._chain is _SHARED_CHAIN or self._chain is _NUMPY_CHAIN or self._chain is _PARAM_CHAIN:
            self._vbase._x = new
        self._x = new

    def _set_value(self, new, aliased=False):
        """Write array ``new`` (same shape) into this tensor's storage, without autograd (``aliased``: see
        ``_mutation._inplace_update``)."""
        if type(self._ver) is InferenceVersion:
            self._inference_write_check()
        b = self._vbase
        if b is None:
            self._x = new
            self._ver[0] += 1
            return
        if self._chain is _ALIAS_CHAIN:  # a host tensor: a plain one now
            self._settle()
            self._x = new
            self._ver[0] += 1
            self._seen = self._ver[0]
            return
        if self._chain is _SHARED_CHAIN or self._chain is _NUMPY_CHAIN:  # the root writes the mapping / array
            b._x = new
            self._x = new
            self._ver[0] += 1
            return
        if not aliased and _views.repeats(self._chain, b._x.shape):
            raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                               "single memory location. Please clone() the tensor before performing the operation.")
        b._store(_views.write_back_fn(self._chain)(b._value, new))  # (b: the root, or since became numpy's)
        v = self._ver
        v[0] += 1
        if _DATA_STEP in self._chain:  # through ``.data``: autograd's version (``_version``) does not move
            if len(v) == 1:
                v.append(0)
            v[1] += 1
        self._x = new.astype(self._x.dtype)
        self._seen = _seen_mark(b, v[0])

    def _check_inplace_leaf(self):
        if self._chain is _ALIAS_CHAIN:
            self._settle()  # (a host tensor becomes a plain device tensor: the in-place op is recorded)
        if self._vbase is not None and self._grad_fn is not None and "_fn_view" in self.__dict__:
            raise RuntimeError(FN_VIEW_INPLACE.format(self.__dict__["_fn_view"]))
        k = self.__dict__.get("_multi_view")
        if k is not None and self._vbase is not None and self._grad_fn is not None:
            name = self._grad_fn.name()
            raise RuntimeError(MULTI_VIEW_INPLACE.format(k, name[:name.rfind("Backward")] or name))
        if self._grad_fn is None and self._rg:
            made = self.__dict__.get("_acc_nograd_view")
            if made is not None:
                raise RuntimeError(_NOGRAD_VIEW_INPLACE[made])
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        b = self._vbase
        c = self._chain  # (torch: a view that requires grad of a leaf: the root, or the detach()/.data alias it was
        # made of, a parameter sharing a view's storage (a leaf: a write through an alias is never recorded))
        if b is not None and (b._grad_fn is None and c[0][0] != "alias" and (b._rg or self._grad_fn is not None) or
                              self._grad_fn is not None and any(s is _DETACH_STEP or s is _DATA_STEP for s in c[:-1])):
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                               "operation.")

    # ---- metadata -----------------------------------------------------------------------------
    # (read from ``_x`` without refreshing a stale view: a view's shape and dtype never change)
    @property
    def shape(self):
        return _tuple_new(Size, self._x.shape)  # (an array's shape is ints: Size's checks are not needed)

    def size(self, d=None, /, dim=None):  # (d: a dim given by position, whose parser error gives it)
        s = self._x.shape
        if d is None:
            return _tuple_new(Size, s) if dim is None else s[_wrap_dim(dim, len(s))]
        if dim is not None:  # (no keyword-only parameter nor *args: they would cost the call its specialisation)
            raise TypeError("size() takes from 0 to 1 positional arguments but 2 were given")
        try:
            return s[_wrap_dim(d, len(s))]
        except TypeError:
            raise argument_error(d, "int", "dim", "size", 1) from None

    # ---- autograd -----------------------------------------------------------------------------
    @property
    def requires_grad(self):
        if self._vbase is not None and self._seen != self._ver[0] and self._seen != -2 - self._ver[0]:
            self._refresh()
        return self._rg or self._grad_fn is not None

    @requires_grad.setter
    def requires_grad(self, flag):
        self._set_requires_grad(flag, "only Tensors of floating point and complex dtype can require gradients")

    def requires_grad_(self, requires_grad=True):
        if requires_grad is not True and requires_grad is not False:
            raise argument_error(requires_grad, "bool", "requires_grad", "requires_grad_", 1)
        return self._set_requires_grad(requires_grad, "only Tensors of floating point dtype can require gradients")

    def _as_grad_leaf(self):
        """``self`` made a leaf that requires grad by a factory's ``requires_grad=True`` (or ``Parameter``),
        with the message torch's factories give an integer dtype."""
        return self._set_requires_grad(True, "Only Tensors of floating point and complex dtype can require gradients")

    def _set_requires_grad(self, requires_grad, dtype_error):
        # (torch words the dtype error three ways: requires_grad_(), the attribute, a factory's argument)
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to "
                                   "use a computed variable in a subgraph that doesn't require differentiation "
                                   "use var_no_grad = var.detach().")
            return self
        if requires_grad and type(self._ver) is InferenceVersion:
            self._inference_requires_grad_check()
        if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError(dtype_error)
        if self._chain is _ALIAS_CHAIN:
            self._settle()  # (a host tensor becomes a plain device tensor before it becomes a leaf)
        self._rg = bool(requires_grad)
        return self

    @property
    def grad_fn(self):
        if self._vbase is not None and self._seen != self._ver[0] and self._seen != -2 - self._ver[0]:
            self._refresh()
        return self._grad_fn

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def grad(self):
        g = self._grad
        if g is None and self._grad_fn is not None and not self._retains:
            warn_at_caller(_NON_LEAF_GRAD)
        return g

    @grad.setter
    def grad(self, g):
        if g is not None:
            if not isinstance(g, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(g).__name__}")
            want = self.dtype if self._gdt is None else self._gdt  # (grad_dtype; ANY_GRAD_DTYPE: None was set)
            if g.dtype is not want and want is not ANY_GRAD_DTYPE:
                raise RuntimeError(_grad_dtype_error(g.dtype, want))
            if tuple(g.shape) != tuple(self.shape):
                raise RuntimeError(f"attempting to assign a gradient of size '{list(g.shape)}' to a tensor of size "
                                   f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the "
                                   f"same size")
        self._grad = g

    @property
    def retains_grad(self):
        return self._retains

    def _accumulator(self):
        """This leaf's AccumulateGrad node (a NoGradViewSink for a view made under no_grad)."""
        acc = self._acc
        if acc is None or acc() is None:
            node = (AccumulateGrad if self.__dict__.get("_acc_nograd_view") is None else NoGradViewSink)(self)
            self._acc = weakref.ref(node)
            return node
        return acc()

    def retain_grad(self):
        """Keep ``.grad`` for this non-leaf tensor after backward."""
        if self.grad_fn is None:
            if not self._rg:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if self._retains:
            return
        self._retains = True
        node = self._grad_fn
        if node._retained is None:
            node._retained = {}
        node._retained[self._oi] = weakref.ref(self)

    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; may return a new gradient."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        tr = _trace_hooks.current()
        if tr is not None:  # traced by torchlike.compile: a JAX gradient of the program would not run it
            tr.custom_grad = "Tensor.register_hook"
        if self._grad_fn is None:
            if self.__dict__.get("_acc_nograd_view") is not None:
                return RemovableHandle(collections.OrderedDict())  # (torch: a no_grad view's gradient never arrives, the hook never runs)
            return self._accumulator_strong()._add_tensor_hook(0, hook)
        return self._grad_fn._add_tensor_hook(self._oi, hook)

    def _accumulator_strong(self):
        node = self._accumulator()
        self.__dict__["_acc_keep"] = node  # hooks must outlive the graph
        return node

    _post_accumulate_grad_hooks = None  # torch's: an OrderedDict (handle id -> hook) once one is registered

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` runs after the gradient is accumulated into this leaf's ``.grad``; the hooks live in
        ``_post_accumulate_grad_hooks`` (libraries read it) and the handle is torch's RemovableHandle."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        hooks = self.__dict__.get("_post_accumulate_grad_hooks")
        if hooks is None:
            hooks = self.__dict__["_post_accumulate_grad_hooks"] = collections.OrderedDict()
            self._accumulator_strong().register_hook(
                lambda gi, go, _t=self, _hooks=hooks: [h(_t) for h in tuple(_hooks.values())])
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def detach(self):
        """A tensor sharing storage with self, outside the autograd graph."""
        if _prof.SUBCLASSES and type(self) in _prof.SUBCLASSES:  # its __torch_dispatch__ sees aten.detach
            return _prof.SUBCLASS_HANDLER[0].detach(self)
        if self._vbase is None and Tensor._value is _PLAIN_VALUE:  # (a root: ``_make_view``'s alias, inline)
            out = _new(Tensor)
            out._x = self._x
            out._vbase = self
            out._chain = _DETACH_CHAIN
            ver = out._ver = self._ver
            out._seen = -1 if self._rereads else ver[0]
            out._grad = out._grad_fn = out._acc = None
            out._oi = 0
            out._rg = out._retains = False
            out._dev = self._dev
            return out
        out = Tensor._wrap(self._value, self._dev)
        return self._make_view(out, _DETACH_STEP)

    def detach_(self):
        if self._vbase is not None and (self._chain[0][0] != "alias" or len(self._chain) > 1):
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are using "
                               "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is "
                               "set as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                               "called on these gradients. To fix this error, please refer to the Optimizer."
                               "zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._rg = False
        if self._vbase is None and _is_tracer(self._x):  # traced: outside the compiled call's JAX gradient too
            self._x = jax.lax.stop_gradient(self._x)
        return self

    @property
    def data(self):
        # torch's .data has a version counter of its own: a write through it is invisible to autograd's
        # saved-tensor check. Ours shares the list (views refresh from it) and counts such writes apart.
        out = Tensor._wrap(self._value, self._dev)
        return self._make_view(out, _DATA_STEP)

    @data.setter
    def data(self, new):
        if not isinstance(new, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(new).__name__}")
        strides = new.stride() if new._vbase is not None or new._st is not None else None  # (before self changes:
        self._x = new._value  # new may be a view of self)
        self._dev = new._dev
        self._vbase = self._chain = None
        self._seen = 0  # (no longer a lazy or host view: a host tensor's -2 would read a device array as one)
        v = self._ver  # (an inference tensor's stays one: torch still refuses its in-place writes)
        self._ver = type(v)([v[0] if len(v) == 1 else v[0] - v[1]])
        _mfmt.set_strides(self, strides)  # (torch shares the new data's strides: its channels-last tag here)

    # ---- conversion to Python / numpy ---------------------------------------------------------
    def _host_scalar(self):
        """A lazy view's value read on the host from its (small) root, without materialising it; or None."""
        if self._seen != -2 - self._ver[0]:  # (only a lazy view, unwritten since it was made)
            return None
        p = self._x
        if type(p) is np.ndarray:  # a host tensor (_from_host)
            return p if p.size == 1 else None
        h = p.host
        if h is None and p.size == 1:
            h = p.host = _views.host_read(p.src, self._chain)
        return h

    def item(self):  # (an argument given: Python's words, not CPython's for torch's C method, as for dim)
        if _prof.SUBCLASSES and type(self) in _prof.SUBCLASSES:  # its __torch_dispatch__ sees _local_scalar_dense
            return _prof.SUBCLASS_HANDLER[0].item(self)
        if self._dev is not CPU and self._dev.type == "meta":
            n = self.numel()
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar" if n != 1 else
                               "Tensor.item() cannot be called on meta tensors")
        h = self._host_scalar()
        if h is not None:
            return h.item()
        x = self._value
        if _is_tracer(x):
            raise _concrete_error("item")
        if x.size != 1:
            raise RuntimeError(f"a Tensor with {x.size} elements cannot be converted to Scalar")
        return to_host(x).item()

    def tolist(self, *args):
        if args:
            raise no_arguments_error("tolist", len(args))
        if self._dev is not CPU and self._dev.type == "meta":
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        h = self._host_array()
        if h is not None:
            return h.tolist()
        x = self._value
        h = _views.host_copy(x)  # a small host tensor moved to the device (e.g. iterated) not written since
        if h is not None:
            return h.tolist()
        if _is_tracer(x):
            raise _concrete_error("tolist")
        return to_host(x).tolist()

    def __bool__(self):
        if self._dev is not CPU and self._dev.type == "meta":
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        h = self._host_array(True)
        x = self._value if h is None else h
        if _is_tracer(x):
            raise _concrete_error("__bool__")
        if x.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with {'no values' if x.size == 0 else 'more than one value'} "
                               "is ambiguous")
        return bool(to_host(x).reshape(()))

    def __index__(self):
        h = self._host_scalar()
        if h is not None and h.dtype.kind in "iub":
            return int(h.item())
        x = self._value
        if x.dtype.kind not in "iub" or x.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        if _is_tracer(x):
            raise _concrete_error("item")
        return int(to_host(x).item())

    def __contains__(self, element):
        # torch: ``x in t`` asks whether any element equals ``x`` (not Python's row iteration)
        if isinstance(element, (Tensor, numbers.Number)):
            return bool((element == self).any().item())
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                           f"{type(element)}.")

    def __len__(self):
        if self._x.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._x.shape[0]

    def __hash__(self):
        return id(self)

    def __getattr__(self, name):
        # only reached when normal lookup fails: a torch API torchlike lacks is named as such, any other name
        # gets torch's AttributeError
        if name in TENSOR_NAMES_MISSING:
            raise MissingAPI(f"Tensor.{name} is not implemented in torchlike")
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __format__(self, spec):
        # torch: a plain 0-d tensor formats its value; anything else only with an empty spec (its str)
        if self.ndim == 0 and type(self) is Tensor and not _is_tracer(self._value):
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def is_shared(self):
        return self._chain is _SHARED_CHAIN



_new = object.__new__
_PLAIN_VALUE = Tensor.__dict__["_value"]

_SLOT_X = Tensor.__dict__["_x"]  # (the slot itself: tracing installs a recording property over it)


def _seen_mark(root, version):
    """The ``_seen`` a view of ``root`` takes once it has read it at ``version``: that version, or -1 (never
    current) where the root shares a numpy array's memory (``_numpy_bridge``), whose writes move no version."""
    return -1 if root._rereads or root._chain is _NUMPY_CHAIN else version


def _concrete_error(what):
    return GraphBreak(f"Tensor.{what}() needs a concrete value, but the tensor is being traced "
                      f"(inside torchlike.compile / jax.jit)")

