"""torch.distributed.distributed_c10d, the module torch.distributed's process-group API lives in: the same objects
as ``torch.distributed``'s (libraries import ``Work``, ``ProcessGroup``, ``get_rank``, ... from here)."""
from datetime import timedelta  # noqa: F401

from . import (  # noqa: F401 (torch.distributed.distributed_c10d's names)
    Backend, DebugLevel, DistStoreError, GroupMember, P2POp, PrefixStore, ProcessGroup, ReduceOp,
    Store, Work, _all_gather_base, _reduce_scatter_base, all_gather,
    all_gather_into_tensor, all_gather_object, all_gather_single, all_reduce, all_to_all, all_to_all_single, barrier,
    batch_isend_irecv, broadcast, broadcast_object_list, default_pg_timeout, destroy_process_group,
    gather, gather_object, get_backend, get_debug_level, get_default_backend_for_device,
    get_global_rank, get_group_rank, get_node_local_rank, get_pg_count, get_process_group_ranks,
    get_rank, get_world_size, group, init_process_group, irecv, is_backend_available,
    is_gloo_available, is_initialized, is_mpi_available, is_nccl_available,
    is_torchelastic_launched, is_ucc_available, is_xccl_available, isend, monitored_barrier,
    new_group, new_subgroups, new_subgroups_by_enumeration, recv, recv_object_list, reduce,
    reduce_op, reduce_scatter, reduce_scatter_single, reduce_scatter_tensor, scatter, scatter_object_list, send,
    send_object_list, supports_complex)
from .._missing import module_getattr

__getattr__ = module_getattr("torch.distributed.distributed_c10d")
