"""torchlike.distributed: torch.distributed on JAX's distributed runtime.

Process groups start ``jax.distributed`` (gloo collectives on CPU, NCCL on GPU); every collective is an XLA
collective in a jitted ``shard_map`` over the group's devices. Launch with
``python -m torchlike.distributed.run --nproc-per-node N script.py`` (torchrun's flags).

>>> import torchlike.distributed as dist
>>> dist.is_available(), dist.is_initialized()
(True, False)
"""
from __future__ import annotations

from .._missing import module_getattr
from ._collectives import (all_gather, all_gather_into_tensor, all_gather_single, all_reduce, all_to_all, all_to_all_single, broadcast,
                           gather, reduce, reduce_scatter, reduce_scatter_single, reduce_scatter_tensor, scatter)
from ._object_collectives import all_gather_object, broadcast_object_list, gather_object, scatter_object_list
from ._p2p import irecv, isend, recv, send
from ._reduce_op import ReduceOp
from ._collectives import _all_gather_base, _reduce_scatter_base  # noqa: F401 (torch's private aliases)
from ._process_group import (Backend, GroupMember, ProcessGroup, Work, barrier, default_pg_timeout,
                             destroy_process_group, get_backend, get_global_rank, get_group_rank,
                             get_process_group_ranks, get_rank, get_world_size, group, init_process_group,
                             is_available, is_gloo_available, is_initialized, is_mpi_available, is_nccl_available,
                             is_torchelastic_launched, new_group)
from ._debug import DebugLevel, breakpoint, get_debug_level, set_debug_level, set_debug_level_from_env
from ._errors import DistBackendError, DistError, DistNetworkError, DistStoreError, QueueEmptyError
from ._grad_bucket import GradBucket
from ._groups import (get_default_backend_for_device, get_node_local_rank, get_pg_count, is_backend_available,
                      is_ucc_available, is_xccl_available, monitored_barrier, new_subgroups,
                      new_subgroups_by_enumeration, supports_complex)
from ._store import FileStore, HashStore, PrefixStore, Store
from ._tcp_store import TCPStore
from ._p2p_batch import P2POp, batch_isend_irecv, recv_object_list, send_object_list
from .device_mesh import DeviceMesh, init_device_mesh
from datetime import timedelta
import logging as _logging

log = _logging.getLogger("torch.distributed")
reduce_op = ReduceOp  # torch's deprecated alias of the reduction names

__all__ = ["Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather", "all_gather_into_tensor", "all_gather_single",
           "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single", "barrier", "broadcast",
           "broadcast_object_list", "default_pg_timeout", "destroy_process_group", "gather", "gather_object",
           "get_backend", "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_rank",
           "get_world_size", "group", "init_process_group", "irecv", "is_available", "is_gloo_available",
           "is_initialized", "is_mpi_available", "is_nccl_available", "is_torchelastic_launched", "isend",
           "new_group", "recv", "reduce", "reduce_scatter", "reduce_scatter_single", "reduce_scatter_tensor", "scatter",
           "scatter_object_list", "send", "DebugLevel", "breakpoint", "get_debug_level", "set_debug_level",
           "set_debug_level_from_env", "DistBackendError", "DistError", "DistNetworkError", "DistStoreError",
           "QueueEmptyError", "get_default_backend_for_device", "get_node_local_rank", "get_pg_count",
           "is_backend_available", "is_ucc_available", "is_xccl_available", "monitored_barrier", "new_subgroups",
           "new_subgroups_by_enumeration", "supports_complex", "P2POp", "batch_isend_irecv", "recv_object_list",
           "send_object_list", "DeviceMesh", "init_device_mesh", "GradBucket",
           "FileStore", "HashStore", "PrefixStore", "Store", "TCPStore", "timedelta", "log", "reduce_op"]

__getattr__ = module_getattr("torch.distributed")

from . import distributed_c10d  # noqa: E402,F401 (torch.distributed.distributed_c10d)
