"""Starting JAX's distributed runtime. JAX requires ``jax.distributed.initialize`` before any computation, and
importing torchlike computes (e.g. its random generator), so a worker started by a launcher (torchrun's
environment: TORCHELASTIC_RUN_ID with WORLD_SIZE > 1) starts the runtime when torchlike is imported;
``init_process_group`` then only checks that it agrees. This module imports nothing from torchlike.
"""
from __future__ import annotations

import os

__all__ = ["start", "start_from_env", "state"]

state = {"started": False, "error": None, "rank": None, "world": None, "addr": None}


def start(addr, port, world_size, rank, timeout_s=1800, backend=None):
    import jax
    if state["started"]:
        return
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    kw = {}
    if backend == "nccl" and os.environ.get("LOCAL_RANK") is not None:
        kw["local_device_ids"] = [int(os.environ["LOCAL_RANK"])]
    secs = max(1, int(timeout_s))
    jax.distributed.initialize(coordinator_address=f"{addr}:{port}", num_processes=world_size, process_id=rank,
                               initialization_timeout=secs, heartbeat_timeout_seconds=min(secs, 100),
                               shutdown_timeout_seconds=min(secs, 30), **kw)
    state.update(started=True, rank=rank, world=world_size, addr=f"{addr}:{port}")


def start_from_env():
    """Start the runtime at import if this process was launched as a worker of a multi-process job."""
    env = os.environ
    if state["started"] or env.get("TORCHLIKE_NO_EARLY_DIST") == "1":
        return
    if not (env.get("TORCHELASTIC_RUN_ID") and env.get("MASTER_ADDR") and env.get("MASTER_PORT")):
        return
    try:
        world, rank = int(env["WORLD_SIZE"]), int(env["RANK"])
    except (KeyError, ValueError):
        return
    if world <= 1:
        return
    try:
        start(env["MASTER_ADDR"], env["MASTER_PORT"], world, rank,
              float(env.get("TORCHLIKE_DIST_TIMEOUT", "1800")))
    except Exception as e:  # reported by init_process_group, with torch's exception type
        state["error"] = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
