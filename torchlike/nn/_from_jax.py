"""Pure JAX and Flax models as torchlike Modules: ``nn.from_jax(apply_fn, params)`` and ``nn.from_flax``.

The JAX function runs as one recorded op: its parameters become ``nn.Parameter``s (visible in
``named_parameters()`` / ``state_dict()``, trained by any torchlike optimizer), eager backward replays it
through ``jax.vjp``, and under ``torchlike.compile`` it is traced into the surrounding XLA program.

>>> import jax.numpy as jnp, torchlike
>>> m = torchlike.nn.from_jax(lambda p, x: x @ p["w"] + p["b"], {"w": jnp.ones((3, 2)), "b": jnp.zeros(2)})
>>> sorted(n for n, _ in m.named_parameters())
['b', 'w']
>>> y = m(torchlike.ones(4, 3)); y.sum().backward(); m.w.grad.tolist()
[[4.0, 4.0], [4.0, 4.0], [4.0, 4.0]]
"""
from __future__ import annotations

import jax

from .._creation import from_jax as _wrap_array
from .._dispatch import dispatch
from ..tensor import Tensor
from .modules.module import Module
from .parameter import Parameter

__all__ = ["JaxModule", "from_jax", "from_flax"]


def _key_name(k):
    for attr in ("key", "name", "idx"):
        if hasattr(k, attr):
            return str(getattr(k, attr))
    return str(k)


class JaxModule(Module):
    """A JAX function ``apply_fn(params, *arrays)`` and its parameter pytree, as a Module.

    Leaves of ``params`` become Parameters named by their pytree path (nested dicts become child
    modules, so ``{"dense": {"kernel": ...}}`` is ``dense.kernel``). Leaves of ``state`` (non-trainable
    arrays such as batch statistics) become buffers; when ``mutable=True`` the function returns
    ``(outputs, new_state)`` and the buffers are updated after each eager call.
    """

    def __init__(self, apply_fn, params, state=None, *, mutable=False):
        super().__init__()
        self._apply_fn, self._mutable, self._has_state = apply_fn, bool(mutable), state is not None
        p_leaves, self._p_tree = jax.tree_util.tree_flatten_with_path(params)
        s_leaves, self._s_tree = jax.tree_util.tree_flatten_with_path(state if state is not None else {})
        self._p_names = [self._place(path, leaf, True) for path, leaf in p_leaves]
        self._s_names = [self._place(path, leaf, False) for path, leaf in s_leaves]
        self._out_tree = {}
        self._fn = self._make_fn()

    def _place(self, path, leaf, trainable):
        names = [_key_name(k) for k in path] or ["param" if trainable else "state"]
        owner = self
        for n in names[:-1]:
            child = owner._modules.get(n)
            if child is None:
                child = Module()
                owner.add_module(n, child)
            owner = child
        t = _wrap_array(jax.numpy.asarray(leaf)) if not isinstance(leaf, Tensor) else leaf.detach()
        if trainable:
            owner.register_parameter(names[-1], Parameter(t))
        else:
            owner.register_buffer(names[-1], t)
        return ".".join(names)

    def _make_fn(self):
        n_p, n_s = len(self._p_names), len(self._s_names)
        p_tree, s_tree, out_tree = self._p_tree, self._s_tree, self._out_tree
        apply_fn, mutable, has_state = self._apply_fn, self._mutable, self._has_state

        def fn(*arrays, static_kwargs=()):
            params = jax.tree_util.tree_unflatten(p_tree, arrays[:n_p])
            kwargs = dict(static_kwargs)
            if has_state:
                state = jax.tree_util.tree_unflatten(s_tree, arrays[n_p:n_p + n_s])
                out = apply_fn(params, state, *arrays[n_p + n_s:], **kwargs)
            else:
                out = apply_fn(params, *arrays[n_p:], **kwargs)
            if mutable:
                out, new_state = out
                new_leaves = jax.tree_util.tree_leaves(new_state)
            else:
                new_leaves = []
            leaves, tree = jax.tree_util.tree_flatten(out)
            out_tree[(len(new_leaves),) + tuple(static_kwargs)] = tree
            return tuple(leaves) + tuple(new_leaves)
        return fn

    def forward(self, *args, **kwargs):
        # buffers go in as fresh wrappers: they are written after the call, which must not trip the
        # saved-tensor version check of this op's backward
        tensors = [self.get_parameter(n) for n in self._p_names] + \
            [_wrap_array(self.get_buffer(n)._value) for n in self._s_names]
        statics = (("static_kwargs", tuple(sorted(kwargs.items()))),) if kwargs else ()
        outs = dispatch(self._fn, (*tensors, *args), statics, name="JaxFunctionBackward0")
        outs = list(outs) if isinstance(outs, tuple) else [outs]
        n_new = len(self._s_names) if self._mutable else 0
        if n_new:
            outs, new = outs[:-n_new], outs[-n_new:]
            for name, t in zip(self._s_names, new):
                self.get_buffer(name)._set_value(t._value)
        tree = self._out_tree[(n_new,) + tuple(sorted(kwargs.items()))]
        return jax.tree_util.tree_unflatten(tree, outs)

    def extra_repr(self):
        fn = getattr(self._apply_fn, "__qualname__", type(self._apply_fn).__name__)
        return f"apply_fn={fn}, parameters={len(self._p_names)}, buffers={len(self._s_names)}"


def from_jax(apply_fn, params, state=None, *, mutable=False):
    """Wrap ``apply_fn(params, *arrays)`` (or ``apply_fn(params, state, *arrays)`` when ``state`` is given)
    with its parameter pytree as a torchlike ``nn.Module`` (see ``JaxModule``).

    >>> import jax.numpy as jnp, torchlike
    >>> m = torchlike.nn.from_jax(lambda p, x: jnp.tanh(x * p), jnp.ones(3))
    >>> m(torchlike.zeros(3)).tolist()
    [0.0, 0.0, 0.0]
    """
    return JaxModule(apply_fn, params, state, mutable=mutable)


def from_flax(module, variables=None):
    """Wrap a Flax module as a torchlike ``nn.Module``.

    An NNX module (``flax.nnx.Module``) is split into its ``nnx.Param`` state (Parameters) and the rest
    (batch statistics and other variables as buffers, written back after each eager call). A linen module
    needs its ``variables`` (from ``module.init``): ``variables["params"]`` become Parameters, other
    collections (``batch_stats``, ...) buffers, applied as mutable and written back after each eager call, as
    Flax's ``apply(..., mutable=[...])`` returns them.

    >>> import jax, torchlike
    >>> from flax import nnx
    >>> m = torchlike.nn.from_flax(nnx.Linear(3, 2, rngs=nnx.Rngs(0)))
    >>> sorted(n for n, _ in m.named_parameters())
    ['bias', 'kernel']
    >>> m(torchlike.ones(5, 3)).shape
    torch.Size([5, 2])
    """
    try:
        from flax import nnx  # lazy: flax is optional (test extra); only this function needs it
    except ImportError:  # pragma: no cover - flax is in the test extra
        nnx = None
    if nnx is not None and isinstance(module, nnx.Module):
        return _from_nnx(nnx, module)
    if variables is None:
        raise TypeError("from_flax: a linen module needs its variables (module.init(rng, *inputs))")
    variables = dict(variables)
    params = variables.pop("params", {})
    collections = list(variables)

    def apply_linen(p, s, *xs, **kw):
        if not collections:
            return module.apply({"params": p}, *xs, **kw)
        out, new = module.apply({"params": p, **s}, *xs, mutable=collections, **kw)
        return out, {c: new[c] for c in collections}  # the buffers' structure, whatever apply returned
    return JaxModule(apply_linen, params, variables, mutable=bool(collections))


def _from_nnx(nnx, module):
    """NNX: Params become Parameters, other variables buffers (PRNG keys stored as their key data);
    torchlike's ``train()``/``eval()`` select the module's train or eval graph."""
    graphs = {}
    for mode in (True, False):
        module.train() if mode else module.eval()
        graphs[mode] = nnx.split(module, nnx.Param, ...)[0]
    module.train()
    _, p_state, r_state = nnx.split(module, nnx.Param, ...)
    p_def, r_def = jax.tree_util.tree_structure(p_state), jax.tree_util.tree_structure(r_state)
    pure_p, pure_r = nnx.to_pure_dict(p_state), nnx.to_pure_dict(r_state)
    r_pure_def = jax.tree_util.tree_structure(pure_r)
    is_key = [jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key) for leaf in jax.tree_util.tree_leaves(pure_r)]
    pure_r = jax.tree_util.tree_unflatten(r_pure_def, [
        jax.random.key_data(v) if k else v for v, k in zip(jax.tree_util.tree_leaves(pure_r), is_key)])

    def apply(p, s, *xs, _training=True, **kw):
        s_leaves = [jax.random.wrap_key_data(v) if k else v for v, k in zip(jax.tree_util.tree_leaves(s), is_key)]
        m = nnx.merge(graphs[_training], jax.tree_util.tree_unflatten(p_def, jax.tree_util.tree_leaves(p)),
                      jax.tree_util.tree_unflatten(r_def, s_leaves))
        out = m(*xs, **kw)
        new = jax.tree_util.tree_leaves(nnx.split(m, nnx.Param, ...)[2])
        new = [jax.random.key_data(v) if k else v for v, k in zip(new, is_key)]
        return out, jax.tree_util.tree_unflatten(r_pure_def, new)
    return _FlaxNNX(apply, pure_p, pure_r, mutable=True)


class _FlaxNNX(JaxModule):
    """An NNX module: the torchlike training flag picks the NNX train/eval graph."""

    def forward(self, *args, **kwargs):
        return super().forward(*args, _training=bool(self.training), **kwargs)
