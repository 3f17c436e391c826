"""Device memory statistics and synchronization over JAX's device ``memory_stats()``, shared by
torch.cuda and torch.accelerator.

JAX reports bytes in use, the process-lifetime peak and the allocator limit; torch's "reserved" figures
map to the same allocator (XLA's BFC allocator does not expose a separate cached pool), and a peak reset
is emulated: after ``reset_peak(d)``, the peak is JAX's peak if that has grown since the reset, else the
current use (a lower bound) — see docs/differences.md.
"""
from __future__ import annotations

import collections

import jax

__all__ = ["stats", "allocated", "peak", "reserved", "reset_peak", "mem_info", "synchronize"]

_peak_at_reset = {}  # jax device -> JAX's peak_bytes_in_use when the user reset the peak


def _raw(d):
    try:
        s = d.memory_stats()
    except Exception:  # a backend without statistics (JAX's CPU client)
        s = None
    return s or {}


def allocated(d) -> int:
    return int(_raw(d).get("bytes_in_use", 0))


def peak(d) -> int:
    s = _raw(d)
    p, cur = int(s.get("peak_bytes_in_use", 0)), int(s.get("bytes_in_use", 0))
    base = _peak_at_reset.get(d)
    if base is None or p > base:
        return p
    return cur


def reserved(d) -> int:
    s = _raw(d)
    return int(s.get("bytes_reserved", s.get("pool_bytes", s.get("bytes_in_use", 0))))


def reset_peak(d) -> None:
    _peak_at_reset[d] = int(_raw(d).get("peak_bytes_in_use", 0))


def mem_info(d):
    """(free, total) bytes as torch.cuda.mem_get_info reports them."""
    s = _raw(d)
    total = int(s.get("bytes_limit", 0))
    return total - int(s.get("bytes_in_use", 0)), total


def stats(d):
    """torch's memory_stats keys for what JAX reports (an OrderedDict, empty when nothing is known)."""
    s = _raw(d)
    if not s:
        return collections.OrderedDict()
    cur, pk = allocated(d), peak(d)
    out = collections.OrderedDict()
    for key in ("allocated_bytes", "active_bytes"):
        out[f"{key}.all.current"] = cur
        out[f"{key}.all.peak"] = pk
    out["reserved_bytes.all.current"] = reserved(d)
    out["num_alloc_retries"] = 0
    out["num_ooms"] = int(s.get("num_ooms", 0)) if "num_ooms" in s else 0
    if "largest_alloc_size" in s:
        out["largest_alloc_size"] = int(s["largest_alloc_size"])
    if "bytes_limit" in s:
        out["bytes_limit"] = int(s["bytes_limit"])
    return out


def synchronize(d) -> None:
    """Wait for the work queued on ``d`` (JAX dispatch is asynchronous; its queues are in order)."""
    jax.device_put(0, d).block_until_ready()
