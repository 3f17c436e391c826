"""``torch.distributed.device_mesh`` on ``jax.sharding.Mesh``.

A :class:`DeviceMesh` is a named n-d arrangement of devices. It wraps a ``jax.sharding.Mesh`` (``.jax_mesh``)
whose axis names are the mesh dim names, so a DTensor's placements become a ``NamedSharding``.

Which devices: when the mesh has one entry per process (torch's usual case, one device per rank) it takes the
first local device of every process; when it has one entry per JAX device (one process driving several
devices, e.g. ``XLA_FLAGS=--xla_force_host_platform_device_count=8``) it takes all of ``jax.devices()``.

>>> from torchlike.distributed.device_mesh import init_device_mesh
>>> mesh = init_device_mesh("cpu", (1,), mesh_dim_names=("dp",))
>>> mesh
DeviceMesh((dp=1), 'cpu', stride=((),))
>>> mesh.size(), mesh.ndim, mesh.get_coordinate()
(1, 1, (0,))
"""
from __future__ import annotations

import math

import numpy as np

from .._creation import tensor as _tensor
from .._dtype import int32
from ..tensor import Tensor
from . import _process_group

__all__ = ["DeviceMesh", "init_device_mesh"]


def _pick_devices(n):
    import jax
    devs = jax.devices()
    if n == len(devs):
        return devs
    nproc = jax.process_count()
    if n == nproc:
        per = {}
        for d in devs:
            per.setdefault(d.process_index, d)
        return [per[p] for p in sorted(per)]
    from . import get_world_size, is_initialized
    ws = get_world_size() if is_initialized() else nproc
    raise RuntimeError(f"Mesh should not be bigger than default world size {ws}, but found {n} ranks!"
                       if n > len(devs) else
                       f"the mesh has {n} entries but there are {nproc} processes and {len(devs)} devices; "
                       f"torchlike needs one entry per process or one per device")


class DeviceMesh:
    """An n-d mesh of devices (``mesh`` holds the global ranks / device indices, ``jax_mesh`` the JAX mesh).

    >>> import torchlike
    >>> m = DeviceMesh("cpu", torchlike.tensor([0]), mesh_dim_names=("dp",))
    >>> m["dp"].mesh_dim_names
    ('dp',)
    """

    def __init__(self, device_type, mesh, *, mesh_dim_names=None, _init_backend=True, _devices=None):
        arr = np.asarray(mesh._value if isinstance(mesh, Tensor) else mesh, dtype=np.int64)
        self.device_type = device_type
        self.mesh = _tensor(arr.tolist(), dtype=int32)
        self._arr = arr
        if mesh_dim_names is not None:
            mesh_dim_names = tuple(mesh_dim_names)
            if len(mesh_dim_names) != arr.ndim:
                raise RuntimeError(f"mesh_dim_names {mesh_dim_names} should have the same length as the mesh "
                                   f"dimensions {arr.ndim}")
        self.mesh_dim_names = mesh_dim_names
        if _init_backend:
            from . import init_process_group, is_initialized
            if not is_initialized():
                init_process_group()
        devs = _devices if _devices is not None else _pick_devices(arr.size)
        self._devices = devs
        names = mesh_dim_names or tuple(f"dim{i}" for i in range(arr.ndim))
        from jax.sharding import Mesh
        self.jax_mesh = Mesh(np.array([devs[i] for i in arr.reshape(-1)], dtype=object).reshape(arr.shape),
                             names)
        self._axis_names = names
        if _init_backend:
            self._make_subgroups()

    @property
    def ndim(self):
        return self._arr.ndim

    @property
    def shape(self):
        return tuple(self._arr.shape)

    def size(self, mesh_dim=None):
        return int(self._arr.size) if mesh_dim is None else int(self._arr.shape[self._dim(mesh_dim)])

    def _dim(self, d):
        if isinstance(d, str):
            if not self.mesh_dim_names or d not in self.mesh_dim_names:
                raise KeyError(f"Mesh dimension '{d}' does not exist. Available mesh dimensions are: "
                               f"mesh_dim_names={self.mesh_dim_names}")
            return self.mesh_dim_names.index(d)
        return d

    def get_rank(self):
        from . import get_rank, is_initialized
        return get_rank() if is_initialized() else 0

    def _my_index(self):
        """The mesh entry this process acts as: its rank, or (one process, many devices) its first device."""
        import jax
        if self._arr.size == jax.process_count() and self._arr.size > 1:
            return self.get_rank()
        mine = jax.local_devices()[0]
        for i, d in enumerate(self._devices):
            if d == mine:
                return i
        return None

    def get_coordinate(self):
        idx = self._my_index()
        if idx is None:
            return None
        pos = np.argwhere(self._arr == idx)
        return tuple(int(c) for c in pos[0]) if len(pos) else None

    def get_local_rank(self, mesh_dim=None):
        if mesh_dim is None:
            if self.ndim > 1:
                raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions",
                                   "Optional kwarg `mesh_dim` needs to be specified when device_mesh.ndim > 1.")
            mesh_dim = 0
        return self.get_coordinate()[self._dim(mesh_dim)]

    def get_group(self, mesh_dim=None):
        """The process group of this rank's slice along ``mesh_dim`` (the world group for a mesh over all
        ranks, or where one process drives the mesh's devices)."""
        from . import group
        ranks = self._slice_ranks(mesh_dim)
        if ranks is None:
            return group.WORLD
        return _subgroup(ranks)

    def get_all_groups(self):
        return [self.get_group(i) for i in range(self.ndim)]

    def _slice_ranks(self, mesh_dim):
        """Sorted global ranks of this rank's slice along ``mesh_dim``; None when that is the world."""
        from . import get_world_size, is_initialized
        if not is_initialized() or get_world_size() == 1 or self._arr.size > get_world_size():
            return None
        if mesh_dim is None:
            if self.ndim > 1:
                raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions",
                                   "Optional kwarg `mesh_dim` needs to be specified when device_mesh.ndim > 1.",
                                   "If you want to get the list of all the ProcessGroups in the DeviceMesh,"
                                   "please use `get_all_groups()` instead.")
            mesh_dim = 0
        d = self._dim(mesh_dim)
        coord = self.get_coordinate()
        if coord is None:
            return None
        ranks = sorted(int(r) for r in self._arr[tuple(slice(None) if i == d else coord[i]
                                                       for i in range(self.ndim))].reshape(-1))
        return None if ranks == list(range(get_world_size())) else tuple(ranks)

    def _make_subgroups(self):
        """torch's init_device_mesh creates a group per slice of every dim on every rank; so does this (in the
        same order on every rank, so the groups' ids agree)."""
        from . import get_world_size, is_initialized
        if not is_initialized() or get_world_size() == 1 or self._arr.size != get_world_size() or self.ndim < 2:
            return
        for d in range(self.ndim):
            rows = np.moveaxis(self._arr, d, -1).reshape(-1, self._arr.shape[d])
            for row in rows:
                _subgroup(tuple(sorted(int(r) for r in row)))

    def __getitem__(self, names):
        if isinstance(names, str):
            names = (names,)
        dims = [self._dim(n) for n in names]
        coord = self.get_coordinate() or [0] * self.ndim
        idx = tuple(slice(None) if i in dims else coord[i] for i in range(self.ndim))
        sub = self._arr[idx]
        return DeviceMesh(self.device_type, sub, mesh_dim_names=tuple(names), _init_backend=False,
                          _devices=self._devices)

    def __len__(self):
        return self.size(0) if self.ndim else 1

    def __eq__(self, other):
        return (isinstance(other, DeviceMesh) and self.device_type == other.device_type
                and np.array_equal(self._arr, other._arr) and self.mesh_dim_names == other.mesh_dim_names)

    def __hash__(self):
        return hash((self.device_type, self._arr.tobytes(), self._arr.shape, self.mesh_dim_names))

    def __repr__(self):
        if self.mesh_dim_names:
            dims = ", ".join(f"{n}={s}" for n, s in zip(self.mesh_dim_names, self._arr.shape))
        else:
            dims = ", ".join(str(s) for s in self._arr.shape) + ("," if self.ndim == 1 else "")
        strides = tuple(s // self._arr.itemsize for s in self._arr.strides) if self._arr.size > 1 else ()
        stride = "(" + ", ".join(str(s) for s in strides) + ("," if len(strides) == 1 else "") + ")"
        return f"DeviceMesh(({dims}), '{self.device_type}', stride=({stride},))"


_SUBGROUPS = {}


def _subgroup(ranks):
    """The process group of ``ranks`` (made once; every rank makes the same ones in the same order)."""
    key = (id(_process_group.GroupMember.WORLD), ranks)  # a new default group (after destroy) starts afresh
    g = _SUBGROUPS.get(key)
    if g is None:
        g = _SUBGROUPS[key] = _process_group.ProcessGroup(list(ranks), _process_group.get_backend())
        _process_group._register(g)
    return g


def init_device_mesh(device_type, mesh_shape, *, mesh_dim_names=None, backend_override=None):
    """A :class:`DeviceMesh` of ``mesh_shape`` over all ranks (initialising the default group if needed).

    >>> init_device_mesh("cpu", (1,)).shape
    (1,)
    """
    mesh_shape = tuple(mesh_shape)
    if mesh_dim_names is not None and len(tuple(mesh_dim_names)) != len(mesh_shape):
        raise RuntimeError("mesh_shape and mesh_dim_names should have same length!",
                           f"Found len(mesh_dim_names): {len(tuple(mesh_dim_names))} and len(mesh_shape):"
                           f"{len(mesh_shape)}.")
    if mesh_dim_names is not None and len(set(mesh_dim_names)) != len(tuple(mesh_dim_names)):
        raise RuntimeError("Each mesh_dim_name must be unique.",
                           f"Found repeated mesh_dim_name in mesh_dim_names {tuple(mesh_dim_names)}")
    n = math.prod(mesh_shape)
    return DeviceMesh(device_type, np.arange(n).reshape(mesh_shape), mesh_dim_names=mesh_dim_names)
