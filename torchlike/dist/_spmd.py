"""Single-controller SPMD: one process drives every device of a ``jax.sharding.Mesh``.

``data_parallel`` compiles a training step with ``torchlike.compile`` and feeds it the batch sharded on dim 0
over the mesh axis while parameters, buffers and optimizer state are replicated (``replicate``) or sharded
(``fully_shard``). XLA's SPMD partitioner then inserts the collectives: the gradient of a mean loss over the
global batch becomes a per-device partial gradient plus an all-reduce (replicated parameters) or a
reduce-scatter (sharded parameters), and sharded parameters are all-gathered for compute. The math is the
single-device step's, so results match it up to floating-point reassociation.
"""
from __future__ import annotations

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

from ..compile import compile as _compile
from ..tensor import Tensor

__all__ = ["make_mesh", "replicate", "fully_shard", "data_parallel", "bytes_per_device"]


def make_mesh(axis_names=("dp",), shape=None, devices=None):
    """A ``jax.sharding.Mesh`` over ``devices`` (default: all), 1-d unless ``shape`` says otherwise.

    >>> from torchlike.dist import make_mesh
    >>> make_mesh().axis_names
    ('dp',)
    """
    devs = list(devices) if devices is not None else jax.devices()
    shape = tuple(shape) if shape is not None else (len(devs),)
    return Mesh(np.array(devs, dtype=object).reshape(shape), tuple(axis_names))


def _spec_for(t, mesh, axis, shard):
    n = mesh.shape[axis]
    if shard and t.ndim and t.shape[0] % n == 0 and t.shape[0] >= n:
        return NamedSharding(mesh, P(axis))
    return NamedSharding(mesh, P())


def _place(t, sharding):
    x = t._value
    if getattr(x, "sharding", None) != sharding:
        t._x = jax.device_put(x, sharding)
    if t._grad is not None and getattr(t._grad._value, "sharding", None) != sharding:
        t._grad._x = jax.device_put(t._grad._value, sharding)


def _state_tensors(module):
    return list(module.parameters()) + list(module.buffers())


def replicate(module, mesh, axis=None):
    """Place every parameter and buffer of ``module`` on every device of ``mesh`` (data parallelism)."""
    rep = NamedSharding(mesh, P())
    for t in _state_tensors(module):
        _place(t, rep)
    module.__dict__["_tl_spmd"] = (mesh, axis or mesh.axis_names[0], False)
    return module


def fully_shard(module, mesh=None, axis=None, reshard_after_forward=True):
    """Shard every parameter of ``module`` on dim 0 over ``mesh``'s ``axis`` (FSDP-style, in place; a dim 0 the
    mesh doesn't divide stays replicated). Gradients and optimizer state follow the parameter's sharding.

    >>> import torchlike
    >>> m = fully_shard(torchlike.nn.Linear(4, 2), make_mesh())
    >>> tuple(m.weight.shape)
    (2, 4)
    """
    mesh = mesh if mesh is not None else make_mesh()
    axis = axis or mesh.axis_names[0]
    for p in module.parameters():
        _place(p, _spec_for(p, mesh, axis, True))
    for b in module.buffers():
        _place(b, NamedSharding(mesh, P()))
    module.__dict__["_tl_spmd"] = (mesh, axis, True)
    return module


def _place_optimizer(opt, module):
    if opt is None:
        return
    mesh, axis, shard = module.__dict__["_tl_spmd"]
    for group in opt.param_groups:
        for p in group["params"]:
            st = opt.state.get(p)
            if not st:
                continue
            ps = p._value.sharding
            for v in st.values():
                if isinstance(v, Tensor):
                    _place(v, ps if tuple(v.shape) == tuple(p.shape) else NamedSharding(mesh, P()))


def data_parallel(step_fn, mesh=None, module=None, optimizer=None, axis=None, compile=True):
    """``step_fn`` compiled as one SPMD program over ``mesh``: tensor arguments are split on dim 0 across
    ``axis``; ``module`` (replicated unless already ``fully_shard``-ed) and ``optimizer`` state live on the mesh.
    With a mesh spanning several processes (after ``init_process_group`` under the launcher) each process passes
    its own part of the batch, as with DDP; the global batch is the parts in process order.

    >>> import torchlike
    >>> model = torchlike.nn.Linear(3, 1)
    >>> opt = torchlike.optim.SGD(model.parameters(), lr=0.1)
    >>> def step(x, y):
    ...     opt.zero_grad()
    ...     loss = torchlike.nn.functional.mse_loss(model(x), y)
    ...     loss.backward()
    ...     opt.step()
    ...     return loss
    >>> step = data_parallel(step, make_mesh(), module=model, optimizer=opt)
    >>> float(step(torchlike.ones(4, 3), torchlike.zeros(4, 1))) >= 0
    True
    """
    mesh = mesh if mesh is not None else make_mesh()
    axis = axis or mesh.axis_names[0]
    if module is not None and "_tl_spmd" not in module.__dict__:
        replicate(module, mesh, axis)
    fn = _compile(step_fn) if compile else step_fn
    rep = NamedSharding(mesh, P())

    multi = not all(d.process_index == jax.process_index() for d in mesh.devices.flat)

    def place_arg(a):
        if not isinstance(a, Tensor):
            return a
        if multi and getattr(a._value, "is_fully_addressable", True):
            # several processes: each passes its own part of the batch (as with DDP); the global batch is the
            # parts concatenated in process order
            n_local = sum(d.process_index == jax.process_index() for d in mesh.devices.flat)
            local_shard = a.ndim and a.shape[0] % n_local == 0 and a.shape[0] >= n_local
            sh = NamedSharding(mesh, P(axis) if local_shard else P())
            if local_shard:
                a._x = jax.make_array_from_process_local_data(sh, np.asarray(a._value))
                return a
        _place(a, _spec_for(a, mesh, axis, True))
        return a

    def wrapped(*args, **kwargs):
        if module is not None:
            _, _, shard = module.__dict__["_tl_spmd"]
            for p in module.parameters():
                _place(p, _spec_for(p, mesh, axis, shard))
            for b in module.buffers():
                _place(b, rep)
            _place_optimizer(optimizer, module)
        args = [place_arg(a) for a in args]
        kwargs = {k: place_arg(v) for k, v in kwargs.items()}
        return fn(*args, **kwargs)

    wrapped.mesh = mesh
    wrapped.__wrapped__ = step_fn
    return wrapped


def bytes_per_device(tensors):
    """Bytes of ``tensors`` held by one device (the first) — drops as 1/N when they are sharded N ways."""
    total = 0
    for t in tensors:
        x = t._value
        shards = getattr(x, "addressable_shards", None)
        total += shards[0].data.nbytes if shards else x.nbytes
    return total
