"""torchlike.fx.proxy: ``Proxy``, the stand-in value a ``Tracer`` passes through a program; every operation on it
(operators, attribute reads, method calls, torchlike functions through ``__torch_function__``) records a Node.

    >>> import torchlike
    >>> gm = torchlike.fx.symbolic_trace(lambda x: (x * 2).sum(dim=0))
    >>> [n.op for n in gm.graph.nodes]
    ['placeholder', 'call_function', 'call_method', 'output']
"""
from __future__ import annotations

import dis
import inspect
import operator

from .. import _torch_function
from ..nn import functional as _functional
from ..tensor import Tensor

__all__ = ["Proxy", "Attribute", "TraceError", "ParameterProxy", "GraphAppendingTracer"]


class TraceError(ValueError):
    """A traced program used a Proxy where a concrete value is needed (control flow, iteration).

    >>> import torchlike
    >>> try:
    ...     torchlike.fx.symbolic_trace(lambda x: x if x.sum() > 0 else -x)
    ... except torchlike.fx.TraceError as e:
    ...     print(e)
    symbolically traced variables cannot be used as inputs to control flow
    """


class Proxy:
    """A value being traced (torch.fx.Proxy): ``node`` is the graph node that computes it.

    >>> import torchlike
    >>> g = torchlike.fx.Graph()
    >>> p = torchlike.fx.Proxy(g.placeholder("x"))
    >>> (p + 1).node.format_node()
    '%add : [num_users=0] = call_function[target=operator.add](args = (%x, 1), kwargs = {})'
    """

    def __init__(self, node, tracer=None):
        if tracer is None:  # a Proxy made outside a trace records into the node's graph (torch's GraphAppendingTracer)
            tracer = GraphAppendingTracer(node.graph)
        self.tracer, self.node = tracer, node

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"):  # copy/pickle protocols probe these: not tensor attributes
            raise AttributeError(k)
        return Attribute(self, k)

    def __getstate__(self):
        return dict(self.__dict__)

    def __setstate__(self, d):
        self.__dict__.update(d)

    def __deepcopy__(self, memo):
        return Proxy(self.node, self.tracer)

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self, *args), kwargs)

    def __iter__(self):
        # ``a, b = proxy`` unpacks by index (the caller's next instruction says how many); other iteration fails
        frame = inspect.currentframe().f_back
        for inst in dis.get_instructions(frame.f_code):
            if inst.offset == frame.f_lasti:
                if inst.opname == "UNPACK_SEQUENCE":
                    return iter([self[i] for i in range(inst.argval)])
                break
        return self.tracer.iter(self)

    def __bool__(self):
        return self.tracer.to_bool(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this call to be "
                           "recorded, please call torch.fx.wrap('len') at module scope")

    def keys(self):
        return self.tracer.keys(self)

    @classmethod
    def __torch_function__(cls, orig_method, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        tracer = proxies_in(args, kwargs)[0].tracer
        name = getattr(orig_method, "__name__", None)
        if name is not None and getattr(Tensor, name, None) is orig_method:  # a Tensor method: call_method
            if name.startswith("__") and name.endswith("__") and hasattr(Tensor, name[2:-2]):
                name = name[2:-2]
            return tracer.create_proxy("call_method", name, args, kwargs)
        args, kwargs = _torch_call_form(orig_method, args, kwargs)
        return tracer.create_proxy("call_function", orig_method, args, kwargs)


# How many leading arguments torch's Python nn.functional functions pass positionally when they hand a Proxy to
# __torch_function__ (the rest go as keywords, defaults filled in), read from torch 2.13's calls; torchlike's
# signatures of these functions are torch's.
_FUNCTIONAL_POSITIONAL = {name: n for n, names in (
    (1, "alpha_dropout celu dropout dropout1d dropout2d dropout3d elu feature_alpha_dropout glu gumbel_softmax "
        "hardsigmoid hardswish hardtanh instance_norm interpolate leaky_relu log_softmax mish normalize relu relu6 "
        "rrelu selu silu softmax softmin softsign tanhshrink"),
    (2, "adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d_with_indices adaptive_max_pool2d_with_indices "
        "adaptive_max_pool3d_with_indices affine_grid binary_cross_entropy binary_cross_entropy_with_logits "
        "cross_entropy embedding embedding_bag fractional_max_pool2d_with_indices fractional_max_pool3d_with_indices "
        "grid_sample group_norm hinge_embedding_loss huber_loss kl_div layer_norm local_response_norm "
        "max_pool1d_with_indices max_pool2d_with_indices max_pool3d_with_indices mse_loss multi_margin_loss "
        "multilabel_margin_loss multilabel_soft_margin_loss nll_loss pad poisson_nll_loss rms_norm smooth_l1_loss "
        "soft_margin_loss unfold"),
    (3, "batch_norm cosine_embedding_loss fold gaussian_nll_loss linear_cross_entropy lp_pool1d lp_pool2d lp_pool3d "
        "margin_ranking_loss max_unpool1d max_unpool2d max_unpool3d threshold triplet_margin_loss "
        "triplet_margin_with_distance_loss"),
    (4, "ctc_loss")) for name in names.split()}
_SIGNATURES = {}


def _torch_call_form(func, args, kwargs):
    """The arguments as torch records them for ``func``: for torch's Python functionals, the leading ones
    positional and every other parameter a keyword (``relu(x)`` -> ``relu(x, inplace=False)``)."""
    name = getattr(func, "__name__", None)
    npos = _FUNCTIONAL_POSITIONAL.get(name)
    if npos is None or getattr(_functional, name, None) is not func:
        return args, kwargs
    sig = _SIGNATURES.get(name)
    if sig is None:
        sig = _SIGNATURES[name] = inspect.signature(func)
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        return args, kwargs
    bound.apply_defaults()
    items = list(bound.arguments.items())
    return tuple(v for _, v in items[:npos]), dict(items[npos:])


class Attribute(Proxy):
    """``proxy.attr``: becomes a ``getattr`` node only if used as a value (a call records a call_method).

    >>> import torchlike
    >>> gm = torchlike.fx.symbolic_trace(lambda x: x.T.sum(1) + x.shape[0])
    >>> [(n.op, n.target if n.op == "call_method" else n.name) for n in gm.graph.nodes][1:4]
    [('call_function', 'getattr_1'), ('call_method', 'sum'), ('call_function', 'getattr_2')]
    """

    def __init__(self, root, attr):
        self.root, self.attr, self.tracer = root, attr, root.tracer
        self._node = None

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root, *args), kwargs)


class ParameterProxy(Proxy):
    """A Proxy of a parameter read with ``get_attr`` under ``Tracer(param_shapes_constant=True)``: its shape and
    size are the parameter's, not traced.

    >>> import torchlike
    >>> class Scale(torchlike.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = torchlike.nn.Parameter(torchlike.ones(3))
    ...     def forward(self, x):
    ...         return x * self.w.shape[0]
    >>> g = torchlike.fx.Tracer(param_shapes_constant=True).trace(Scale())
    >>> [n.op for n in g.nodes]
    ['placeholder', 'get_attr', 'call_function', 'output']
    """

    def __init__(self, tracer, node, name, param):
        super().__init__(node, tracer)
        self.param, self.name = param, name

    @property
    def shape(self):
        return self.param.shape

    def size(self, dim=None):
        return self.param.size() if dim is None else self.param.size(dim)

    def dim(self):
        return self.param.dim()

    @property
    def ndim(self):
        return self.param.ndim

    def numel(self):
        return self.param.numel()

    def nelement(self):
        return self.param.nelement()


_BINARY = ("add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "lshift", "rshift", "and_", "or_", "xor",
           "matmul")
_COMPARE = ("eq", "ne", "lt", "gt", "le", "ge")
_UNARY = ("neg", "pos", "invert", "abs")


def _install_operators():
    def binary(op):
        def forward(self, other):
            return self.tracer.create_proxy("call_function", op, (self, other), {})

        def reflected(self, other):
            return self.tracer.create_proxy("call_function", op, (other, self), {})
        return forward, reflected

    for name in _BINARY + _COMPARE + ("getitem",):
        fwd, rev = binary(getattr(operator, name))
        dunder = name.rstrip("_")
        setattr(Proxy, f"__{dunder}__", fwd)
        if name in _BINARY:
            setattr(Proxy, f"__r{dunder}__", rev)
    for name in _UNARY:
        op = getattr(operator, name)
        setattr(Proxy, f"__{name}__", lambda self, op=op: self.tracer.create_proxy("call_function", op, (self,), {}))
    Proxy.__hash__ = object.__hash__  # (defining __eq__ would otherwise make proxies unhashable)


_install_operators()


class GraphAppendingTracer:
    """The tracer of Proxies built on a bare graph (outside ``symbolic_trace``): records every operation at the
    graph's insertion point.  torchlike functions must see such Proxies (einsum reads its operands' dtypes before
    a type check could reject one), so the ``__torch_function__`` protocol goes on for good, as for any
    tensor-like.

    >>> import torchlike
    >>> g = torchlike.fx.Graph()
    >>> tracer = torchlike.fx.proxy.GraphAppendingTracer(g)
    >>> x = torchlike.fx.Proxy(g.placeholder("x"), tracer)
    >>> torchlike.exp(x).node.format_node()
    '%exp : [num_users=0] = call_function[target=torch.exp](args = (%x,), kwargs = {})'
    """

    def __init__(self, graph):
        self.graph = graph
        _torch_function.enable()

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None):
        args_ = _unwrap(args)
        kwargs_ = _unwrap(kwargs)
        return Proxy(self.graph.create_node(kind, target, args_, kwargs_, name, type_expr), self)

    def iter(self, obj):
        raise TraceError(_ITER_MESSAGE)

    def to_bool(self, obj):
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def keys(self, obj):
        return Attribute(obj, "keys")()


_ITER_MESSAGE = ("Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop or as a "
                 "*args or **kwargs function argument. See the torch.fx docs on pytorch.org for a more detailed "
                 "explanation of what types of control flow can be traced, and check out the Proxy docstring for "
                 "help troubleshooting Proxy iteration errors")


def _unwrap(a):
    if isinstance(a, Proxy):
        return a.node
    if isinstance(a, (tuple, list)):
        return type(a)(_unwrap(x) for x in a)
    if isinstance(a, dict):
        return {k: _unwrap(v) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(_unwrap(a.start), _unwrap(a.stop), _unwrap(a.step))
    return a


def proxies_in(*values):
    """The Proxies found in ``values``, looking inside tuples, lists and dict values (an op's args/kwargs)."""
    found = []

    def look(a):
        if isinstance(a, Proxy):
            found.append(a)
        elif isinstance(a, (tuple, list)):
            for x in a:
                look(x)
        elif isinstance(a, dict):
            for x in a.values():
                look(x)
    for v in values:
        look(v)
    return found
