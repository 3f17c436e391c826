"""Running collective programs: one worker thread, fingerprints, timeouts.

XLA's CPU (gloo) collectives block the thread that calls the program until every rank has joined (the GIL is
released meanwhile). So programs run on one worker thread, in issue order (every rank issues the same
collectives in the same order, so the order is the same everywhere), and the caller waits for them:

- with a deadline: past the process group's ``timeout`` the caller gets torch's ``RuntimeError``
  ("Timed out waiting ...ms for ...") naming the ranks that did not arrive, instead of hanging;
- ``async_op=True`` returns at once and ``Work.wait()`` waits, so DDP's bucket all-reduces overlap backward.

Every program first all-gathers a small fingerprint of the call on each rank (sequence number, op type,
dtype, shape) and runs the collective itself only when all ranks agree (``lax.cond``), so ranks passing
different shapes, dtypes or collectives get torch's "Detected mismatch between collectives on ranks" error
(torch's TORCH_DISTRIBUTED_DEBUG=DETAIL check) instead of a gloo abort, a hang or silently wrong data.
"""
from __future__ import annotations

import os
import queue
import threading
import time

import numpy as np

from ._gloo_banner import dropping_banner

__all__ = ["Pending", "fingerprint", "program", "submit"]

OP_TYPES = ["BROADCAST", "ALLREDUCE", "ALLREDUCE_COALESCED", "REDUCE", "ALLGATHER", "_ALLGATHER_BASE",
            "ALLGATHER_COALESCED", "GATHER", "SCATTER", "REDUCE_SCATTER", "ALLTOALL_BASE", "ALLTOALL", "SEND",
            "RECV", "RECVANYSOURCE", "BARRIER", "_REDUCE_SCATTER_BASE"]
_DTYPES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
           "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
           "complex64": "ComplexFloat", "complex128": "ComplexDouble", "uint16": "UInt16", "uint32": "UInt32",
           "uint64": "UInt64", "float8_e4m3fn": "Float8_e4m3fn", "float8_e5m2": "Float8_e5m2"}
_DT_CODES = {n: i for i, n in enumerate(_DTYPES)}
_DT_NAMES = list(_DTYPES.values())
_MAXDIM = 8
K = 4 + _MAXDIM  # seq, op type, dtype, ndim, dims...
_OPTIONS = ("TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false "
            "(default), pinned_memory=false (default), memory_format=(nullopt))")


def fingerprint(seq, op_type, dtype, shape):
    """The int32 vector every rank contributes: equal on all ranks iff the calls match."""
    shape = tuple(int(s) for s in shape)
    dims = list(shape[:_MAXDIM - 1])
    if len(shape) >= _MAXDIM:
        dims.append(int(np.prod(shape[_MAXDIM - 1:])))
    dims += [-1] * (_MAXDIM - len(dims))
    code = OP_TYPES.index(op_type)
    return np.array([seq, 12 if code == 13 else code, _DT_CODES.get(str(dtype), 99), len(shape)] + dims,
                    np.int64).astype(np.int32)  # RECV shares SEND's code: the two sides of one transfer


def _describe(fp, op_type=None):
    seq, code, dt, nd = (int(v) for v in fp[:4])
    dims = [int(v) for v in fp[4:4 + min(nd, _MAXDIM)]]
    name = op_type or OP_TYPES[code]
    dtn = _DT_NAMES[dt] if dt < len(_DT_NAMES) else "Undefined"
    return (f"CollectiveFingerPrint(SequenceNumber={seq}, OpType={name}, TensorShape={dims}, "
            f"TensorDtypes={dtn}, TensorDeviceTypes={_OPTIONS})")


def _diff(a, b, op_type):
    out = []
    if a[0] != b[0]:
        out.append(f"  Sequence number: {int(a[0])}vs {int(b[0])}")
    if a[1] != b[1]:
        out.append(f"  Op type: {op_type}vs {OP_TYPES[int(b[1])]}")
    sa, sb = (" ".join(str(int(v)) for v in f[4:4 + min(int(f[3]), _MAXDIM)]) for f in (a, b))
    if sa != sb or a[3] != b[3]:
        out.append(f"  Tensor Tensor shapes: {sa}vs {sb}")
    if a[2] != b[2]:
        out.append(f"  Tensor Tensor dtypes: {_describe(a).split('TensorDtypes=')[1].split(',')[0]}vs "
                   f"{_describe(b).split('TensorDtypes=')[1].split(',')[0]}")
    return "".join(out)


def checks_enabled():
    """The fingerprint exchange costs one small all-gather per collective (a network round trip: it dominates
    small collectives); ``TORCHLIKE_DIST_CHECKS=0`` turns it off, as torch runs without its DETAIL checks. Then a
    mismatch between ranks is not diagnosed (gloo fails, hangs into the timeout, or computes garbage)."""
    return os.environ.get("TORCHLIKE_DIST_CHECKS", "1") != "0"


def program(body, mesh, out_replicated=False):
    """``jit(shard_map)`` of ``body`` (rank block -> rank block) guarded by the fingerprint exchange: it returns
    (this rank's output block, the (group_size, K) fingerprints of all ranks). Without checks it takes and returns
    the block only."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P
    if not checks_enabled():
        return jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P("r"), out_specs=P() if out_replicated else P("r"),
                                     check_vma=False))

    def guarded(a, f):
        allf = jax.lax.all_gather(f, "r")
        ok = jnp.all(allf == allf[0])
        shape = jax.eval_shape(body, a)
        y = jax.lax.cond(ok, body, lambda a: jnp.zeros(shape.shape, shape.dtype), a)
        return y, allf
    return jax.jit(jax.shard_map(guarded, mesh=mesh, in_specs=(P("r"), P("r")),
                                 out_specs=(P() if out_replicated else P("r"), P()), check_vma=False))


# ---- the worker thread --------------------------------------------------------------------------------------
class _Job:
    __slots__ = ("fn", "args", "ev", "out", "exc")

    def __init__(self, fn, args):
        self.fn, self.args, self.ev, self.out, self.exc = fn, args, threading.Event(), None, None


_queue: queue.SimpleQueue = queue.SimpleQueue()
_worker_thread = None


def _work():
    import jax
    ran = set()  # programs run before: only a first run connects ranks (and prints gloo's banner)
    while True:
        job = _queue.get()
        try:
            if id(job.fn) in ran:
                job.out = jax.block_until_ready(job.fn(*job.args))
            else:
                with dropping_banner():
                    job.out = jax.block_until_ready(job.fn(*job.args))
                ran.add(id(job.fn))
        except BaseException as e:  # noqa: BLE001 - handed to the waiting caller
            job.exc = e
        job.ev.set()


def submit(fn, *args):
    global _worker_thread
    if _worker_thread is None:
        _worker_thread = threading.Thread(target=_work, name="torchlike-collectives", daemon=True)
        _worker_thread.start()
    job = _Job(fn, args)
    _queue.put(job)
    return job


class Pending:
    """A submitted collective: ``wait()`` returns this rank's output or raises torch's error."""

    __slots__ = ("name", "op_type", "group", "job", "seq", "fp", "state", "_out")

    def __init__(self, name, op_type, group, job, seq, fp, state):
        self.name, self.op_type, self.group, self.job, self.seq, self.fp = name, op_type, group, job, seq, fp
        self.state, self._out = state, None

    def done(self):
        return self.job.ev.is_set()

    def wait(self):
        if self._out is not None:
            return self._out
        job, st = self.job, self.state
        if not job.ev.is_set():
            total = st["timeout"].total_seconds()
            t0 = time.monotonic()
            first = min(2.0, total / 2)
            if not job.ev.wait(first):
                self._announce()
                if not job.ev.wait(max(0.0, total - (time.monotonic() - t0))):
                    st["broken"] = self._timeout_error(total)
                    raise RuntimeError(st["broken"])
        if job.exc is not None:
            msg = str(job.exc).strip().splitlines()
            raise RuntimeError(f"torchlike.distributed: {self.name} failed on rank {st['rank']}: "
                               f"{msg[0] if msg else type(job.exc).__name__}") from None
        if self.fp is None:  # checks off
            self._out = job.out
            return job.out
        y, allf = job.out
        allf = np.asarray(allf.addressable_data(0))
        bad = [i for i in range(allf.shape[0]) if not np.array_equal(allf[i], self.fp)]
        if bad:
            g = self.group
            if g._seq == self.seq + 1:  # like torch, a collective that did not run takes no sequence number
                g._seq -= 1
            me = g.ranks[g.rank()]
            raise RuntimeError(f"Detected mismatch between collectives on ranks. Rank {me} is running collective: "
                               f"{_describe(self.fp, self.op_type)}, but Rank {g.ranks[bad[0]]} is running "
                               f"collective: {_describe(allf[bad[0]])}.Collectives differ in the following "
                               f"aspects: {_diff(self.fp, allf[bad[0]], self.op_type)}")
        self._out = y
        return y

    # ---- timeouts: which ranks did not arrive, from the coordination service's key-value store ---------------
    def _key(self):
        return f"torchlike_waiting/{'_'.join(map(str, self.group.ranks))}/{self.seq}/"

    def _announce(self):
        try:
            from jax._src import distributed as jd
            jd.global_state.client.key_value_set(self._key() + str(self.state["rank"]), "1")
        except Exception:  # noqa: BLE001 - only used to name the missing ranks
            pass

    def _timeout_error(self, total):
        """torch's message (its monitored barrier's, TORCH_DISTRIBUTED_DEBUG=DETAIL) naming the missing ranks."""
        ms, me = int(round(total * 1000)), self.state["rank"]
        try:
            from jax._src import distributed as jd
            here = {int(k.rsplit("/", 1)[-1]) for k, _ in jd.global_state.client.key_value_dir_get(self._key())}
        except Exception:  # noqa: BLE001 - the coordinator is gone: gloo's plain timeout message
            return f"Timed out waiting {ms}ms for {self.name} operation to complete"
        missing = [str(r) for r in self.group.ranks if r not in here and r != me]
        return f"[Rank {me}]: Ranks {', '.join(missing)} failed to pass monitoredBarrier in {ms} ms"
