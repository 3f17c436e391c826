"""Where eager ``all_reduce`` spends its time beyond XLA's gloo all-reduce (2 processes, loopback).

Each rank runs the same variants, interleaved round by round so load changes hit all of them alike:

- ``dist``: ``torchlike.distributed.all_reduce`` as a user calls it (``dist_nochecks``: without the fingerprint
  check, ``TORCHLIKE_DIST_CHECKS=0``);
- ``raw``: the jitted ``shard_map(psum)`` on the global array, called directly (no collective thread, no check);
- ``raw_donated``: the same with the input buffer donated (the output reuses it);
- ``raw_chunks<k>``: one program holding k all-reduces of the tensor's k slices;
- ``raw_rs_ag``: a reduce-scatter then an all-gather; ``raw_ag_sum``: an all-gather then a local sum.

    PYTHONPATH=. python -m torchlike.distributed.run --standalone --nproc-per-node 2 bench/profile_all_reduce.py
"""
import json
import os
import resource
import statistics
import sys
import time


def main(iters=10):
    sizes = [int(v) for v in os.environ.get("PROFILE_SIZES", "1,16,64").split(",")]
    only = os.environ.get("PROFILE_VARIANTS")
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    import torchlike
    import torchlike.distributed as dist
    from torchlike.distributed._process_group import _state
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    devs = _state["devices"]
    mesh = Mesh(devs, ("r",))
    sh = NamedSharding(mesh, P("r"))
    me = devs[rank]

    def smap(f, donate=False):
        return jax.jit(jax.shard_map(f, mesh=mesh, in_specs=P("r"), out_specs=P("r"), check_vma=False),
                       donate_argnums=(0,) if donate else ())

    def chunks(k):
        def f(a):
            return jnp.concatenate([jax.lax.psum(c, "r") for c in jnp.split(a, k)])
        return f

    out = []
    for mb in sizes:
        n = mb * 1024 * 1024 // 4
        t = torchlike.ones(n)
        progs = {"raw": smap(lambda a: jax.lax.psum(a, "r")),
                 "raw_donated": smap(lambda a: jax.lax.psum(a, "r"), donate=True),
                 "raw_chunks4": smap(chunks(4)),
                 "raw_rs_ag": smap(lambda a: jax.lax.all_gather(jax.lax.psum_scatter(a, "r", tiled=True), "r",
                                                                tiled=True)),
                 "raw_ag_sum": smap(lambda a: jnp.sum(jax.lax.all_gather(a, "r"), axis=0))}
        state = {k: jax.device_put(jnp.ones(n, jnp.float32), me) for k in progs}

        def run_raw(k):
            g = jax.make_array_from_single_device_arrays((2 * n,), sh, [state[k]])
            y = progs[k](g)
            y.block_until_ready()
            state[k] = y.addressable_data(0)

        def run_dist(checks):
            os.environ["TORCHLIKE_DIST_CHECKS"] = checks
            dist.all_reduce(t)
            float(t[0])
        variants = {"dist": lambda: run_dist("1"), "dist_nochecks": lambda: run_dist("0"),
                    **{k: (lambda k=k: run_raw(k)) for k in progs}}
        if only:
            variants = {k: f for k, f in variants.items() if k in only.split(",")}
        times = {k: [] for k in variants}
        cpu = {k: [] for k in variants}  # this process's CPU time (all its threads) per call
        faults = {k: [] for k in variants}  # minor page faults per call (fresh buffers touched)
        for k, f in variants.items():  # warm up (compile, connect)
            for _ in range(2):
                dist.barrier()
                f()
        for _ in range(iters):
            for k, f in variants.items():
                dist.barrier()
                f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
                c0, t0 = time.process_time(), time.perf_counter()
                f()
                times[k].append(time.perf_counter() - t0)
                cpu[k].append(time.process_time() - c0)
                faults[k].append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
        x = np.ones(n, np.float32)  # what a fresh buffer costs: page faults on first touch
        times["numpy_fresh_fill"] = []
        for _ in range(iters):
            t0 = time.perf_counter()
            y = np.empty_like(x)
            y[:] = x
            times["numpy_fresh_fill"].append(time.perf_counter() - t0)
            del y
        for k, ts in times.items():
            out.append({"mb": mb, "variant": k, "median_ms": round(1e3 * statistics.median(ts), 2),
                        "min_ms": round(1e3 * min(ts), 2),
                        "cpu_ms": round(1e3 * statistics.median(cpu[k]), 2) if k in cpu else None,
                        "page_faults": int(statistics.median(faults[k])) if k in faults else None})
    if rank == 0:
        for o in out:
            print("RESULT " + json.dumps(o), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
