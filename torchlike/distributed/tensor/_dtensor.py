"""DTensor on JAX: the logical (global) tensor is one ``jax.Array`` laid out by a ``NamedSharding`` over the
DeviceMesh's ``jax.sharding.Mesh``; placements say which mesh axis shards which tensor dim.

Shard/Replicate map to the PartitionSpec directly. Partial(op) is logical: the array holds the reduced
value (from_local reduces the per-rank pieces with one XLA program), and ``to_local`` gives this rank's
share. A dim that the mesh does not divide evenly keeps a replicated JAX layout (JAX shardings are even);
``to_local`` still returns torch's ``chunk`` piece.
"""
from __future__ import annotations

import numpy as np

from ..._creation import class_like, full_like
from ..._grad_mode import is_grad_enabled
from ...tensor import Tensor
from ..._torch_function import disabled_torch_function_impl as _disabled_torch_function_impl
from .placement_types import Partial, Placement, Replicate, Shard
from ..._mutation import alias_op
from .._collectives import all_gather_single
from .._process_group import get_world_size, init_process_group, is_initialized
from ..device_mesh import init_device_mesh

__all__ = ["DTensor", "distribute_tensor"]


def _norm_placements(mesh, placements, ndim):
    if placements is None:
        placements = [Replicate()] * mesh.ndim
    placements = tuple(placements)
    if len(placements) != mesh.ndim:
        raise ValueError(f"`placements` must have the same length as `device_mesh.ndim`! Found placements "
                         f"length: {len(placements)}, and device_mesh.ndim: {mesh.ndim}.")
    out = []
    for p in placements:
        if not isinstance(p, Placement):
            raise TypeError(f"expected a Placement, got {type(p).__name__}")
        if isinstance(p, Shard):
            d = p.dim + ndim if p.dim < 0 else p.dim
            if not 0 <= d < max(ndim, 1) or ndim == 0:
                raise AssertionError(f"Sharding dim {p.dim} greater than tensor ndim {ndim}")
            p = Shard(d)
        out.append(p)
    return tuple(out)


def _sharding(mesh, placements, shape):
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P
    spec = [[] for _ in shape]
    for i, p in enumerate(placements):
        if isinstance(p, Shard):
            spec[p.dim].append(mesh._axis_names[i])
    parts = []
    for d, axes in enumerate(spec):
        n = int(np.prod([mesh.size(mesh._axis_names.index(a)) for a in axes])) if axes else 1
        parts.append(None if not axes or shape[d] % n else (axes[0] if len(axes) == 1 else tuple(axes)))
    return NamedSharding(mesh.jax_mesh, P(*parts))


def _place(x, sharding):
    """``x`` (a jax array) laid out by ``sharding``, also when the mesh spans processes."""
    import jax
    if getattr(x, "sharding", None) == sharding:
        return x
    if jax.process_count() == 1:
        return jax.device_put(x, sharding)
    if getattr(x, "is_fully_addressable", True):
        host = np.asarray(x)
        return jax.make_array_from_callback(host.shape, sharding, lambda idx: host[idx])
    return jax.jit(lambda a: a, out_shardings=sharding)(x)


class DTensor(Tensor):
    """A tensor distributed over a :class:`DeviceMesh` by ``placements``.

    >>> import torchlike
    >>> from torchlike.distributed.device_mesh import init_device_mesh
    >>> from torchlike.distributed.tensor import DTensor, Shard, distribute_tensor
    >>> mesh = init_device_mesh("cpu", (1,))
    >>> d = distribute_tensor(torchlike.arange(4.), mesh, [Shard(0)])
    >>> d.placements, d.to_local(), d.full_tensor()
    ((Shard(dim=0),), tensor([0., 1., 2., 3.]), tensor([0., 1., 2., 3.]))
    """
    __torch_function__ = _disabled_torch_function_impl  # torchlike's own subclass: ops see a plain Tensor

    @staticmethod
    def _optimizer_state(param, value):
        """An optimizer's state tensor ``value`` for ``param`` laid out as the optimizer steps it: for a
        shard-backed parameter a shard-backed DTensor holding this rank's piece (given the piece, the full
        tensor or a DTensor of any layout); otherwise ``value`` unchanged."""
        g = param.__dict__.get("_gshape")
        if g is None or not isinstance(value, Tensor) or value.ndim != len(g):
            return value
        if isinstance(value, DTensor):
            return value if value.__dict__.get("_gshape") is not None else _to_shard_backed(value)
        local = tuple(Tensor.shape.fget(param))
        if tuple(value.shape) == g and g != local:
            (pl,) = [q for q in param.placements if isinstance(q, Shard)] or [Shard(0)]
            _, n, r = _shard_axis(param.device_mesh, param.placements)
            value = value.chunk(n, pl.dim)[r] if r < len(value.chunk(n, pl.dim)) else value.narrow(pl.dim, 0, 0)
        if tuple(value.shape) != local:
            return value
        return DTensor._from_shard(value, param.device_mesh, param.placements, g)

    _param_keeps_class = True  # nn.Parameter(dtensor) is a DTensor flagged as a parameter, as in torch

    @classmethod
    def _make(cls, x, mesh, placements, requires_grad=False, local=None):
        d = cls._wrap(_place(x, _sharding(mesh, placements, x.shape)))
        d._rg = bool(requires_grad)
        d.__dict__["_spec"] = (mesh, placements)
        d.__dict__["_local"] = local
        return d

    @classmethod
    def _from_shard(cls, local, mesh, placements, global_shape, requires_grad=False):
        """A DTensor that holds only this rank's shard (``local``, a Tensor) of a ``global_shape`` tensor: the
        multi-process layout FSDP uses (each process keeps its piece; ``full_tensor`` all-gathers)."""
        d = cls._wrap(local._value, local._dev)
        d._rg = bool(requires_grad)
        d.__dict__["_spec"] = (mesh, tuple(placements))
        d.__dict__["_local"] = None
        d.__dict__["_gshape"] = tuple(int(s) for s in global_shape)
        return d

    # a shard-backed DTensor reports the global (logical) shape, as torch's does
    @property
    def shape(self):
        g = self.__dict__.get("_gshape")
        return Tensor.shape.fget(self) if g is None else type(Tensor.shape.fget(self))(g)

    def size(self, dim=None):
        g = self.__dict__.get("_gshape")
        if g is None:
            return Tensor.size(self, dim)
        return self.shape if dim is None else g[dim + len(g) if dim < 0 else dim]

    def numel(self):
        g = self.__dict__.get("_gshape")
        return Tensor.numel(self) if g is None else int(np.prod(g, dtype=np.int64))

    nelement = numel

    def detach(self):
        if self.__dict__.get("_gshape") is None:
            out = Tensor.detach(self)
            if type(out) is not DTensor:  # stays a DTensor with this one's layout, as torch's
                out = out.as_subclass(DTensor)
                out.__dict__.update({k: self.__dict__[k] for k in ("_spec", "_local") if k in self.__dict__})
            return out
        out = DTensor._from_shard(Tensor._wrap(self._value, self._dev), self.device_mesh, self.placements,
                                  self.__dict__["_gshape"])
        return self._make_view(out, ("alias",))  # shares the shard: in-place writes (dcp.load) reach self

    # the gradient of a DTensor leaf is a DTensor with the leaf's mesh and placements, as torch's is
    @property
    def grad(self):
        g = self._grad
        if g is None or isinstance(g, DTensor) or self.__dict__.get("_gshape") is not None:
            return g
        if tuple(g.shape) != tuple(self.shape):
            return g
        self._grad = g = DTensor._make(g._value, self.device_mesh, self.placements)
        return g

    @grad.setter
    def grad(self, g):
        Tensor.grad.fset(self, g)

    @property
    def device_mesh(self):
        return self.__dict__["_spec"][0]

    @property
    def placements(self):
        return self.__dict__["_spec"][1]

    def __repr__(self):
        return (f"DTensor(local_tensor={self.to_local()!r}, device_mesh={self.device_mesh!r}, "
                f"placements={self.placements!r})")

    # ---- to / from the per-rank pieces -----------------------------------------------------------------
    def to_local(self, *, grad_placements=None):
        """This rank's piece (for one process driving many devices: the piece of its first device)."""
        if self.__dict__.get("_gshape") is not None:
            if self.requires_grad and is_grad_enabled():
                return _alias(self)  # differentiable back to self
            # shares self's storage, as torch's local tensor does: in-place writes (initialisation) reach self
            return self._make_view(Tensor._wrap(self._value, self._dev), ("alias",))
        x = self._value
        t = None
        if not getattr(x, "is_fully_addressable", True):
            import jax
            shard = x.addressable_shards[0]
            t = Tensor._wrap(jax.device_put(shard.data, jax.local_devices()[0]))
            if tuple(t.shape) != tuple(x.shape) or all(isinstance(p, Replicate) for p in self.placements):
                return t  # XLA's even shard is torch's chunk piece
            # an uneven dim keeps a replicated JAX layout: cut torch's chunk piece below
        local = self.__dict__.get("_local")
        if local is not None:
            return local
        coord = self.device_mesh.get_coordinate() or [0] * self.device_mesh.ndim
        t = _alias(self) if t is None else t
        for i, p in enumerate(self.placements):
            n, c = self.device_mesh.size(i), coord[i]
            if isinstance(p, Shard):
                pieces = t.chunk(n, p.dim) if t.shape[p.dim] else [t] * n
                t = pieces[c] if c < len(pieces) else t.narrow(p.dim, 0, 0)
            elif isinstance(p, Partial) and p.reduce_op in ("sum",) and c != 0:
                t = t * 0
        return t

    def full_tensor(self, *, grad_placements=None):
        """The whole tensor on every rank (a plain Tensor)."""
        if self.__dict__.get("_gshape") is not None:
            return _gather_shards(self)
        x = self._value
        if not getattr(x, "is_fully_addressable", True):
            import jax
            from jax.sharding import NamedSharding
            from jax.sharding import PartitionSpec as P
            rep = jax.jit(lambda a: a, out_shardings=NamedSharding(self.device_mesh.jax_mesh, P()))(x)
            return Tensor._wrap(jax.device_put(rep.addressable_data(0), jax.local_devices()[0]))
        return _alias(self)

    @staticmethod
    def from_local(local_tensor, device_mesh=None, placements=None, *, run_check=False, shape=None,
                   stride=None):
        """Build a DTensor from every rank's ``local_tensor`` (sharded dims concatenate, Partial dims reduce)."""
        import jax
        import jax.numpy as jnp
        from jax.sharding import NamedSharding
        from jax.sharding import PartitionSpec as P
        mesh = device_mesh if device_mesh is not None else _default_mesh()
        placements = _norm_placements(mesh, placements, local_tensor.ndim)
        names = mesh._axis_names
        lv = local_tensor._value
        stacked_shape = tuple(mesh.shape) + tuple(lv.shape)
        sh = NamedSharding(mesh.jax_mesh, P(*names))
        ones = (1,) * mesh.ndim
        pieces = [jax.device_put(lv.reshape(ones + lv.shape), d)
                  for d in mesh.jax_mesh.devices.reshape(-1) if d.process_index == jax.process_index()]
        stacked = jax.make_array_from_single_device_arrays(stacked_shape, sh, pieces)

        def combine(s):
            # s: (*mesh.shape, *local.shape); fold mesh dims from the last to the first
            for i in reversed(range(mesh.ndim)):
                p = placements[i]
                if isinstance(p, Shard):
                    s = jnp.concatenate(jnp.split(s, s.shape[i], axis=i), axis=i + 1 + p.dim)
                    s = jnp.squeeze(s, i)
                elif isinstance(p, Partial):
                    f = {"sum": jnp.sum, "avg": jnp.mean, "max": jnp.max, "min": jnp.min}[p.reduce_op]
                    s = f(s, axis=i).astype(s.dtype)
                else:
                    s = jnp.take(s, 0, axis=i)
            return s

        out_shape = jax.eval_shape(combine, jax.ShapeDtypeStruct(stacked_shape, lv.dtype)).shape
        x = jax.jit(combine, out_shardings=_sharding(mesh, placements, out_shape))(stacked)
        keep = local_tensor if any(isinstance(p, Partial) for p in placements) else None
        d = DTensor._make(x, mesh, placements, local_tensor.requires_grad, keep)
        return d

    def redistribute(self, device_mesh=None, placements=None, *, async_op=False, forward_dtype=None,
                     backward_dtype=None):
        """The same logical tensor laid out by new ``placements`` (XLA moves the data)."""
        mesh = device_mesh if device_mesh is not None else self.device_mesh
        placements = _norm_placements(mesh, placements if placements is not None else self.placements, self.ndim)
        return DTensor._make(self._value, mesh, placements, self._rg)


def _gather_shards(d):
    """All-gather a shard-backed DTensor (``torch.chunk`` pieces of dim ``k`` on a 1-d mesh) into a Tensor."""
    import jax.numpy as jnp
    (p,) = [q for q in d.placements if isinstance(q, Shard)] or [None]
    local = Tensor._wrap(d._value, d._dev)
    if p is None:
        return local.clone()
    gshape = d.__dict__["_gshape"]
    group, n, _ = _shard_axis(d.device_mesh, d.placements)
    k = p.dim
    rows = -(-gshape[k] // n) if gshape[k] else 0
    moved = local.movedim(k, 0)
    pad = rows - moved.shape[0]
    if pad:
        x = moved._value
        moved = Tensor._wrap(jnp.pad(x, [(0, pad)] + [(0, 0)] * (x.ndim - 1)), moved._dev)
    out = moved.new_empty((rows * n,) + tuple(moved.shape[1:]))
    all_gather_single(out, moved.contiguous(), group=group)
    return out[:gshape[k]].movedim(0, k).contiguous()


def _shard_axis(mesh, placements):
    """``(group, n, r)`` of a shard-backed layout: the process group of the mesh dim that shards (HSDP's 2-d
    mesh: dim 1, replicated over dim 0), its size and this rank's index in it."""
    dims = [i for i, q in enumerate(placements) if isinstance(q, Shard)]
    i = dims[0] if dims else 0
    if mesh.ndim == 1:
        return mesh.get_group(), mesh.size(), mesh.get_local_rank()
    return mesh.get_group(i), mesh.size(i), mesh.get_local_rank(i)


def _to_shard_backed(d):
    """Turn ``d`` into the shard-backed layout in place (the same object, so an optimizer holding it stays valid):
    a DTensor laid out over the processes' devices (``distribute_tensor``) keeps this rank's ``torch.chunk``
    piece from now on. Returns ``d``."""
    if d.__dict__.get("_gshape") is not None:
        return d
    gshape = tuple(int(s) for s in Tensor.shape.fget(d))
    local = d.to_local()
    d._x, d._vbase, d._chain, d._ver, d._dev = local._value, None, None, [0], local._dev
    d.__dict__["_local"] = None
    d.__dict__["_gshape"] = gshape
    return d


def _dtensor_like(input, fill, dtype, device, requires_grad):
    """``zeros_like`` / ``empty_like`` / ``ones_like`` / ``full_like`` of a DTensor: a DTensor with its mesh and
    placements (a shard-backed one keeps the layout: only this rank's piece is made), as torch's."""
    mesh, placements = input.device_mesh, input.placements
    out = full_like(Tensor._wrap(input._value, input._dev), fill, dtype=dtype, device=device)
    if input.__dict__.get("_gshape") is not None:
        return DTensor._from_shard(out, mesh, placements, input.__dict__["_gshape"], requires_grad)
    return DTensor._make(out._value, mesh, placements, requires_grad)


class_like[DTensor] = _dtensor_like


def _alias(t):
    """A plain Tensor with ``t``'s value, differentiable back to ``t``."""
    out = alias_op(t)
    return out if type(out) is Tensor else out.as_subclass(Tensor)


def _default_mesh():
    if not is_initialized():
        init_process_group()
    return init_device_mesh("cpu", (get_world_size(),))


def distribute_tensor(tensor, device_mesh=None, placements=None, *, src_data_rank=0):
    """Lay out ``tensor`` (the same full value on every rank) over ``device_mesh`` by ``placements``.

    >>> import torchlike
    >>> from torchlike.distributed.device_mesh import init_device_mesh
    >>> from torchlike.distributed.tensor import Replicate
    >>> distribute_tensor(torchlike.ones(2), init_device_mesh("cpu", (1,)), [Replicate()]).full_tensor()
    tensor([1., 1.])
    """
    mesh = device_mesh if device_mesh is not None else _default_mesh()
    if isinstance(tensor, DTensor):
        if tensor.device_mesh != mesh:
            raise ValueError(f"Cannot distribute a DTensor with device mesh {tensor.device_mesh} to a different "
                             f"device mesh {mesh}.")
        return tensor.redistribute(mesh, placements)
    placements = _norm_placements(mesh, placements, tensor.ndim)
    return DTensor._make(tensor._value, mesh, placements, tensor.requires_grad)
