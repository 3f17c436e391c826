"""torchlike.autograd.Function: user-defined forward/backward recorded as one tape node."""
from __future__ import annotations

import functools

from .. import _creation, _grad_mode as grad_mode, _trace_hooks
from .._grad_mode import InferenceVersion
from .._layout import strided as _strided
from .._tape import SAVED_HOOKS, Node, _check_not_freed, pack_saved
from .._tensor_inference import SAVED_ERROR
from .._torch_function import DisableTorchFunction
from ..tensor import Tensor
from . import _function_compile as _compiled, _function_transforms as _transforms

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """The ``ctx`` passed to ``forward``/``backward``: save tensors and flags for backward."""

    def __init__(self):
        self.to_save = ()
        self._saved = None
        self._saved_versions = ()
        self.needs_input_grad = ()
        self.non_differentiable = set()
        self.dirty = set()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    @property
    def saved_tensors(self):
        node = getattr(self, "_node", None)
        if node is not None:
            node._check_saved()
            if node.packed is not None:  # saved_tensors_hooks: each access unpacks, as torch's
                saved = list(self.to_save)
                for pos, obj, unpack in node.packed:
                    t = unpack(obj)
                    if not isinstance(t, Tensor):
                        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result "
                                        f"of type {type(t).__name__}")
                    saved[pos] = t
                return tuple(saved)
        return tuple(self.to_save)

    def mark_non_differentiable(self, *tensors):
        self.non_differentiable.update(id(t) for t in tensors)

    def mark_dirty(self, *tensors):
        self.dirty.update(id(t) for t in tensors)

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


_FN_CLASSES: dict = {}


def _function_node_class(name):
    """``MyFnBackward``: the node class of a custom Function ``MyFn``, as torch names it."""
    cls = _FN_CLASSES.get(name)
    if cls is None:
        cls = _FN_CLASSES[name] = type(name, (_FunctionNode,), {"__slots__": (), "__module__": Function.__module__})
    return cls


class _FunctionNode(Node):
    __slots__ = ("cls", "ctx", "n_inputs", "all_meta", "in_shapes")

    def _unpack(self):  # (ctx.saved_tensors unpacks the packed tensors itself, on each access)
        _check_not_freed(self)

    def __repr__(self):  # a Python class in torch, so its default repr names the module
        return f"<{type(self).__module__}.{type(self).__qualname__} object at {hex(id(self))}>"

    # torch's node of a custom Function is its ctx (a BackwardCFunction): ``grad_fn.saved_tensors``,
    # ``grad_fn.needs_input_grad`` and whatever forward stored on ctx are read (and written) on the node;
    # torchlike keeps the ctx beside the node, so the names the node lacks are the ctx's
    def __getattr__(self, name):
        if name == "ctx" or name.startswith("__"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        try:
            ctx = self.ctx
        except AttributeError:
            ctx = None
        if ctx is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        try:
            return getattr(ctx, name)
        except AttributeError:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'") from None

    def __setattr__(self, name, value):
        if name in _NODE_SLOTS:
            object.__setattr__(self, name, value)
        else:
            setattr(self.ctx, name, value)

    @property
    def next_functions(self):  # one edge per tensor argument, as torch's BackwardCFunction
        return tuple(e if e is not None else (None, 0) for e, m in zip(self.inputs, self.in_shapes) if m is not None)

    def apply(self, cts):
        with grad_mode.no_grad():
            res = self._call(tuple(Tensor._wrap_where(c) if c is not None else None for c in cts))
        return [None if r is None else r._value for r in res]

    def apply_recorded(self, cts):
        with grad_mode.enable_grad():
            return self._call(tuple(cts))

    def _call(self, cts):
        full = [None] * self.n_outputs
        for k, j in enumerate(self.diff_out):
            full[j] = cts[k]
        if self.ctx.materialize_grads:
            full = [c if c is not None else _creation.zeros(m[0], dtype=m[1]) for c, m in
                    zip(full, self.all_meta)]
        res = self.cls.backward(self.ctx, *full)
        if not isinstance(res, tuple):
            res = (res,)
        n = self.n_inputs
        if len(res) > n and all(r is None for r in res[n:]):
            res = res[:n]  # (torch: extra results are fine when all None)
        if len(res) != n:
            raise RuntimeError(f"function {self._name} returned an incorrect number of gradients (expected "
                               f"{n}, got {len(res)})")
        for i, r in enumerate(res):
            if r is None:
                continue
            if self.in_shapes[i] is None:
                raise RuntimeError(f"function {self._name} returned a gradient different than None at position "
                                   f"{i + 1}, but the corresponding forward input was not a Variable")
            if not isinstance(r, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(r).__name__})")
        out = []
        for i in self.diff_in:
            g = res[i]
            shape, dt = self.in_shapes[i]
            if g is not None and tuple(g.shape) != shape:
                try:
                    g = g.sum_to_size(shape)
                except Exception:
                    raise RuntimeError(f"Function {self._name} returned an invalid gradient at index {i} - got "
                                       f"{list(g.shape)} but expected shape compatible with "
                                       f"{list(shape)}") from None
            if g is not None and dt is not None and g.dtype is not dt and dt.is_floating_point:
                g = g.to(dt)  # the engine hands each input a gradient of its own dtype
            out.append(g)
        return out

    @property
    def n_outputs(self):
        return len(self.all_meta)


_NODE_SLOTS = frozenset({"__class__"}.union(*(getattr(c, "__slots__", ()) for c in _FunctionNode.__mro__)))


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = cls


class Function(metaclass=_FunctionMeta):
    """Subclass with static ``forward(ctx, ...)`` and ``backward(ctx, *grads)``; call ``.apply``.

    >>> import torchlike
    >>> class Square(torchlike.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return 2 * x * g
    >>> x = torchlike.tensor([3.0], requires_grad=True)
    >>> Square.apply(x).backward(torchlike.ones(1)); x.grad
    tensor([6.])
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                           "new-style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")

    generate_vmap_rule = False  # True: torch.func.vmap batches forward itself (no ``vmap`` staticmethod)

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError("To use autograd.Function with vmap, you must either override the vmap "
                                  "staticmethod or set generate_vmap_rule=True.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError

    @classmethod
    def apply(cls, *args, **kwargs):
        if _transforms.active() and not cls.__module__.startswith("torchlike."):
            return _transforms.apply(cls, args, kwargs)  # a user's Function inside a torch.func transform
            # follows torch's functorch rules; torchlike's own Functions (hooks, sparse, cond) trace as before
        if _trace_hooks.current() is not None and grad_mode.is_grad_enabled() and \
                not cls.__module__.startswith("torchlike.") and \
                any(isinstance(a, Tensor) and a.requires_grad for a in args):
            out = _compiled.apply_traced(cls, args, kwargs, FunctionCtx, functools.partial(cls._record, traced=True),
                                         _FunctionNode._call, Function.setup_context)
            if out is not None:  # one jax.custom_vjp call in the compiled program (else recorded as below)
                return out
        ctx = FunctionCtx()
        # the bookkeeping reads tensors' state as torch's C++ does, past their types' __torch_function__ (a
        # subclass that handles only some functions, such as ExpandedWeight, raises for the others)
        with DisableTorchFunction():
            ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with grad_mode.no_grad():
            if cls.setup_context is not Function.setup_context:
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        is_tuple = isinstance(out, tuple)
        if ctx.dirty and not ctx.dirty <= {id(o) for o in (out if is_tuple else (out,))}:
            raise RuntimeError("Some elements marked as dirty during the forward method were not returned as output. "
                               "The inputs that are modified inplace must all be outputs of the Function.")
        with DisableTorchFunction():
            outs = cls._record(ctx, args, list(out) if is_tuple else [out])
        return tuple(outs) if is_tuple else outs[0]

    @classmethod
    def _record(cls, ctx, args, outs, traced=False):
        """The outputs of ``forward`` wired to a new node of the graph (where an input requires grad).
        ``traced``: a compiled program's custom_vjp call (``_function_compile``) that differentiates like it."""
        # an input returned as-is becomes a new view of it (torch's view_as(self)): same storage, ``_base`` its base
        for k, o in enumerate(outs):
            if isinstance(o, Tensor) and any(o is a for a in args) and id(o) not in ctx.dirty:
                outs[k] = _view_of_input(o)
        needs = grad_mode.is_grad_enabled() and any(ctx.needs_input_grad)
        if needs:
            tr = _trace_hooks.current()
            if tr is not None and not traced:  # traced by torchlike.compile: its backward is this Function's, not JAX's
                tr.custom_grad = f"autograd.Function {cls.__name__}"
            inputs, diff_in, shapes = [], [], []
            for i, a in enumerate(args):
                if isinstance(a, Tensor) and a.requires_grad:
                    diff_in.append(i)
                    gf = a.grad_fn
                    inputs.append((gf, a._oi) if gf is not None else (a._accumulator(), 0))
                else:
                    inputs.append(None)
                shapes.append((tuple(a.shape), a.dtype) if isinstance(a, Tensor) else None)
            diff_out = tuple(j for j, o in enumerate(outs) if isinstance(o, Tensor) and
                             (o.dtype.is_floating_point or o.dtype.is_complex) and
                             id(o) not in ctx.non_differentiable)
            all_meta = tuple((tuple(o.shape), o.dtype) if isinstance(o, Tensor) else ((), None) for o in outs)
            for i, t in enumerate(ctx.to_save):
                if t is not None and not isinstance(t, Tensor):
                    raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                    f"{type(t).__name__}")
            if any(isinstance(t, Tensor) and type(t._ver) is InferenceVersion for t in ctx.to_save):
                raise RuntimeError(SAVED_ERROR)
            saved = tuple((t, t._version) for t in ctx.to_save if isinstance(t, Tensor))
            node_name = cls.__dict__.get("_node_name") or cls.__name__ + "Backward"
            node = _function_node_class(node_name)(None, (), None, tuple(inputs), tuple(diff_in), diff_out,
                                                   tuple((tuple(outs[j].shape), outs[j]._value.dtype) for j in diff_out),
                                                   node_name, saved)
            node.cls, node.ctx, node.n_inputs = cls, ctx, len(args)
            if SAVED_HOOKS and saved:
                positions = [i for i, t in enumerate(ctx.to_save) if isinstance(t, Tensor)]
                node.packed = [(i, obj, unpack) for i, (obj, unpack) in
                               zip(positions, pack_saved([ctx.to_save[i] for i in positions]))]
                node.saved = ()
            node.all_meta, node.in_shapes = all_meta, shapes
            ctx._node = node
            for k, j in enumerate(diff_out):
                o = outs[j]
                if id(o) in ctx.dirty:
                    o._grad_fn, o._oi = node, k
                    o._ver[0] += 1
                elif o._grad_fn is None and o._vbase is None and not o._rg and \
                        not any(o is outs[i] for i in diff_out[:k]):
                    o._grad_fn, o._oi = node, k  # torch wires the tensor forward returned, so a saved output
                    # unpacks with this node as its grad_fn (double backward through it)
                elif o._grad_fn is None and _is_view_output(o) and not any(o is outs[i] for i in diff_out[:k]):
                    # a view of an input (made in forward, or an input returned as-is): it keeps sharing the
                    # input's storage (data_ptr, writes), with this node as its grad_fn; torch then refuses an
                    # in-place write to it with grad mode on (tensor.FN_VIEW_INPLACE)
                    o._rg = False
                    o.__dict__.pop("_acc_nograd_view", None)
                    o._grad_fn, o._oi = node, k
                    o.__dict__["_fn_view"] = f"Output {k} of {cls.__name__}"
                else:
                    new = Tensor._wrap(o._value, o._dev)
                    new._grad_fn, new._oi = node, k
                    outs[j] = new
        return outs


def _view_of_input(t):
    """A new tensor viewing input ``t`` whole (torch's ``view_as(self)`` of an input a Function's forward returns
    unchanged), outside the graph until ``_record`` wires it; a tensor that has no such view (sparse, ...) is
    detached instead, a new handle on the same values."""
    if t.layout is not _strided:
        return t.detach()
    with grad_mode.no_grad():
        out = t.view_as(t)
    out._rg = False
    out.__dict__.pop("_acc_nograd_view", None)
    return out


def _is_view_output(o):
    """Whether ``o`` (a Function's output) is a differentiable view of an input's storage: a view chain that
    autograd follows (not one through ``detach()``/``.data``, nor a host or shared-memory alias)."""
    chain = o._chain
    return o._vbase is not None and bool(chain) and chain[0][0] != "alias"


class _DelayedError(Function):
    """torch's DelayedError node (``Error``): its outputs are its inputs' values, and a gradient through them raises."""
    _node_name = "Error"

    @staticmethod
    def forward(ctx, message, *tensors):
        ctx.message = message
        return tuple(t.clone() for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(ctx.message)


_function_node_class("Error")._display = "torch::autograd::Error"  # (once_differentiable's C++ node in torch)


def once_differentiable(fn):
    """A Function's ``backward`` that runs without recording: its results, where a gradient of them could be asked
    for (``create_graph`` with grad outputs that require grad), raise torch's error when differentiated.

    >>> import torchlike
    >>> from torchlike.autograd.function import once_differentiable
    >>> class Square(torchlike.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     @once_differentiable
    ...     def backward(ctx, g):
    ...         return 2 * ctx.saved_tensors[0] * g
    >>> x = torchlike.tensor([3.0], requires_grad=True)
    >>> torchlike.autograd.grad(Square.apply(x), x)
    (tensor([6.]),)
    """
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.is_grad_enabled() or _trace_hooks.current() is not None or \
                not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs  # (traced: the compiled program's JAX gradient is differentiated once)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        at = [i for i, o in enumerate(outs) if isinstance(o, Tensor)]
        if not at:
            return outputs
        err = _DelayedError.apply("trying to differentiate twice a function that was marked with @once_differentiable",
                                  *(outs[i].detach().requires_grad_() for i in at))
        outs = list(outs)
        for i, o in zip(at, err if isinstance(err, tuple) else (err,)):
            outs[i] = o
        return outs[0] if single else tuple(outs)
    return wrapper


# ---- torch's other torch.autograd.function names ---------------------------------------------------
FunctionMeta = _FunctionMeta  # Function's metaclass
FunctionMeta.__name__ = FunctionMeta.__qualname__ = "FunctionMeta"


class BackwardCFunction(FunctionCtx):
    """The ``ctx`` class torch builds for each ``Function`` node (torchlike's is ``FunctionCtx``)."""

    _is_legacy = False


class InplaceFunction(Function):
    """A ``Function`` that may work in place (``self.inplace``), as torch's base class.

    >>> InplaceFunction(inplace=True).inplace
    True
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace



__all__ += ["FunctionMeta", "BackwardCFunction", "InplaceFunction"]
