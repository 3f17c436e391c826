"""torch.cuda.memory: the caching allocator's statistics and knobs (the same functions ``torch.cuda`` exports).

>>> import torchlike
>>> torchlike.cuda.memory.memory_allocated is torchlike.cuda.memory_allocated
True
"""
from . import (caching_allocator_alloc, caching_allocator_delete, empty_cache, get_per_process_memory_fraction,
               host_memory_stats, host_memory_stats_as_nested_dict, list_gpu_processes, max_memory_allocated,
               max_memory_cached, max_memory_reserved, mem_get_info, memory_allocated, memory_cached,
               memory_reserved, memory_snapshot, memory_stats, memory_stats_as_nested_dict, memory_summary,
               reset_accumulated_host_memory_stats, reset_accumulated_memory_stats, reset_max_memory_allocated,
               reset_max_memory_cached, reset_peak_host_memory_stats, reset_peak_memory_stats,
               set_per_process_memory_fraction)

__all__ = ["caching_allocator_alloc", "caching_allocator_delete", "get_per_process_memory_fraction",
           "set_per_process_memory_fraction", "empty_cache", "memory_stats", "memory_stats_as_nested_dict",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats", "reset_max_memory_allocated",
           "reset_max_memory_cached", "host_memory_stats", "host_memory_stats_as_nested_dict",
           "reset_accumulated_host_memory_stats", "reset_peak_host_memory_stats", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_cached", "max_memory_cached",
           "memory_snapshot", "memory_summary", "list_gpu_processes", "mem_get_info"]
