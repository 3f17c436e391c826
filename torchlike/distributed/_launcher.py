"""The torchrun-compatible launcher behind ``python -m torchlike.distributed.run``.

It starts ``--nproc-per-node`` workers with torchrun's environment (RANK, LOCAL_RANK, WORLD_SIZE,
LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT, ...), prefixes each output line with ``[rank N]:``,
and when a worker fails (exception or signal) stops the others and exits 1 naming the rank, its exit code and
the tail of its error output. Workers resolve ``import torch`` to torchlike (as under ``python -m torchlike
run``), so torchrun scripts run unchanged. Restarts are not supported (``--max-restarts`` must be 0).
"""
from __future__ import annotations

import argparse
import collections
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid

__all__ = ["get_args_parser", "main", "parse_args", "run"]


def _huge_pages(env):
    """Ask glibc to back its large (mmap'd) allocations with transparent huge pages in the workers.

    XLA's CPU runtime gives every program output a fresh buffer, and glibc serves buffers over 32 MB with a new
    ``mmap``: a 64 MB all-reduce result then costs 16,384 page faults (each 4 KB page zeroed on first touch) per
    call, a quarter to a third of the rank's CPU samples under ``perf`` on this machine. With ``glibc.malloc.hugetlb=1`` (glibc
    >= 2.35; ignored by older ones and where THP is off) the same buffer takes ~32 faults of 2 MB. A user's own
    ``GLIBC_TUNABLES`` setting for it wins; ``TORCHLIKE_HUGEPAGES=0`` leaves the environment alone.
    """
    if env.get("TORCHLIKE_HUGEPAGES", "1") == "0" or not sys.platform.startswith("linux"):
        return
    cur = env.get("GLIBC_TUNABLES", "")
    if "glibc.malloc.hugetlb" not in cur:
        env["GLIBC_TUNABLES"] = f"{cur}:glibc.malloc.hugetlb=1" if cur else "glibc.malloc.hugetlb=1"


def get_args_parser():
    p = argparse.ArgumentParser(prog="torchlike.distributed.run",
                                description="torchrun-compatible launcher for torchlike (JAX distributed runtime)")
    a = p.add_argument
    a("--nnodes", type=str, default="1:1")
    a("--nproc-per-node", "--nproc_per_node", type=str, default="1")
    a("--node-rank", "--node_rank", type=int, default=0)
    a("--master-addr", "--master_addr", type=str, default="127.0.0.1")
    a("--master-port", "--master_port", type=int, default=29500)
    a("--standalone", action="store_true")
    a("--max-restarts", "--max_restarts", type=int, default=0)
    a("--rdzv-backend", "--rdzv_backend", type=str, default="static")
    a("--rdzv-endpoint", "--rdzv_endpoint", type=str, default="")
    a("--rdzv-id", "--rdzv_id", type=str, default="none")
    a("--rdzv-conf", "--rdzv_conf", type=str, default="")
    a("--monitor-interval", "--monitor_interval", type=float, default=0.1)
    a("--start-method", "--start_method", type=str, default="spawn")
    a("--role", type=str, default="default")
    a("-m", "--module", action="store_true")
    a("--no-python", "--no_python", action="store_true")
    a("--run-path", "--run_path", action="store_true")
    a("--log-dir", "--log_dir", type=str, default=None)
    a("-r", "--redirects", type=str, default="0")
    a("-t", "--tee", type=str, default="0")
    a("--local-ranks-filter", "--local_ranks_filter", type=str, default="")
    a("--local-addr", "--local_addr", type=str, default=None)
    a("--max-failure-timeout", type=float, default=10.0,
      help="seconds to let the other workers stop after a failure before killing them")
    a("training_script", type=str)
    a("training_script_args", nargs=argparse.REMAINDER)
    return p


def parse_args(args):
    return get_args_parser().parse_args(args)


def _nnodes(s):
    lo, _, hi = s.partition(":")
    if hi and hi != lo:
        raise ValueError(f"elastic --nnodes={s} is not supported by torchlike (use a fixed node count)")
    return int(lo)


def _nproc(s):
    if s in ("auto", "cpu", "gpu"):
        if s == "gpu":
            raise ValueError("--nproc-per-node=gpu: count the GPUs and pass a number")
        return 1 if s == "auto" else os.cpu_count()
    return int(s)


def _free_port(addr):
    with socket.socket() as s:
        s.bind((addr, 0))
        return s.getsockname()[1]


def _port_in_use(addr, port):
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((addr if addr not in ("localhost",) else "127.0.0.1", port))
        except OSError:
            return True
    return False


class _Worker:
    def __init__(self, rank, local_rank, cmd, env):
        self.rank, self.local_rank = rank, local_rank
        self.tail = collections.deque(maxlen=60)
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     start_new_session=True)
        self.exit_time = None
        self.signalled = False  # the launcher signalled it while it ran (a signal death then is not its own)
        self.threads = [threading.Thread(target=self._pump, args=(self.proc.stdout, sys.stdout, False), daemon=True),
                        threading.Thread(target=self._pump, args=(self.proc.stderr, sys.stderr, True), daemon=True)]
        for t in self.threads:
            t.start()
        threading.Thread(target=self._wait, daemon=True).start()

    def _pump(self, src, dst, keep):
        prefix = f"[rank {self.rank}]: ".encode()
        out = dst.buffer if hasattr(dst, "buffer") else None
        for line in iter(src.readline, b""):
            if keep:
                self.tail.append(line.decode(errors="replace").rstrip("\n"))
            data = prefix + line if line.endswith(b"\n") else prefix + line + b"\n"
            with _OUT_LOCK:
                if out is not None:
                    out.write(data)
                    out.flush()
                else:
                    dst.write(data.decode(errors="replace"))
                    dst.flush()
        src.close()

    def _wait(self):
        self.proc.wait()
        self.exit_time = time.monotonic()

    def kill(self, sig):
        if self.proc.poll() is None:
            self.signalled = True
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


_OUT_LOCK = threading.Lock()
# error output of a rank whose collective failed because a peer left (not a root cause)
_PEER_FAILURE = ("Connection closed by peer", "Connection reset by peer", "failed on rank")


def _describe(code):
    if code < 0:
        try:
            return f"{code} (killed by signal {signal.Signals(-code).name})"
        except ValueError:
            return f"{code} (killed by signal {-code})"
    return str(code)


def run(args):
    """Launch the workers described by ``args`` (from ``parse_args``); returns the exit code."""
    if args.max_restarts:
        print("torchlike.distributed.run: --max-restarts > 0 is not supported (no elastic restarts); "
              "use --max-restarts 0", file=sys.stderr)
        return 2
    nnodes, nproc = _nnodes(args.nnodes), _nproc(args.nproc_per_node)
    addr, port = args.master_addr, args.master_port
    if args.rdzv_endpoint:
        host, _, p = args.rdzv_endpoint.rpartition(":")
        addr, port = (host or addr), int(p) if p else port
    if args.standalone:
        nnodes, addr = 1, "127.0.0.1"
        port = _free_port(addr)
    elif args.node_rank == 0 and _port_in_use(addr if addr != "localhost" else "127.0.0.1", port):
        print(f"torchlike.distributed.run: error: MASTER_PORT {port} on {addr} is already in use "
              f"(address already in use); pick another --master-port or use --standalone", file=sys.stderr)
        return 1
    world = nnodes * nproc
    base = dict(os.environ)
    site = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_runner_site")
    pp = [site, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))]
    if base.get("PYTHONPATH"):
        pp.append(base["PYTHONPATH"])
    base.update(PYTHONPATH=os.pathsep.join(pp), TORCHLIKE_AS_TORCH="1", MASTER_ADDR=addr,
                MASTER_PORT=str(port), WORLD_SIZE=str(world), LOCAL_WORLD_SIZE=str(nproc),
                GROUP_RANK=str(args.node_rank), GROUP_WORLD_SIZE=str(nnodes), ROLE_NAME=args.role,
                ROLE_WORLD_SIZE=str(world), TORCHELASTIC_RUN_ID=args.rdzv_id if args.rdzv_id != "none"
                else uuid.uuid4().hex[:8], TORCHELASTIC_RESTART_COUNT="0",
                TORCHELASTIC_MAX_RESTARTS=str(args.max_restarts), PYTHONUNBUFFERED="1")
    base.setdefault("OMP_NUM_THREADS", "1")
    _huge_pages(base)
    if args.no_python:
        cmd = [args.training_script]
    elif args.module:
        cmd = [sys.executable, "-u", "-m", args.training_script]
    else:
        cmd = [sys.executable, "-u", args.training_script]
    cmd += list(args.training_script_args)
    workers = []
    for lr in range(nproc):
        rank = args.node_rank * nproc + lr
        env = dict(base, RANK=str(rank), LOCAL_RANK=str(lr), ROLE_RANK=str(rank))
        workers.append(_Worker(rank, lr, cmd, env))

    def on_signal(sig, frame):
        for w in workers:
            w.kill(signal.SIGKILL)
        sys.exit(128 + sig)

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        failed = None
        while True:
            done = [w for w in workers if w.exit_time is not None]
            bad = [w for w in done if w.proc.returncode != 0]
            if bad:
                failed = min(bad, key=lambda w: w.exit_time)
                break
            if len(done) == len(workers):
                break
            time.sleep(args.monitor_interval)
        if failed is not None:
            for w in workers:
                if w.proc.poll() is None:
                    w.kill(signal.SIGTERM)
            deadline = time.monotonic() + args.max_failure_timeout
            while time.monotonic() < deadline and any(w.proc.poll() is None for w in workers):
                time.sleep(0.05)
            for w in workers:
                w.kill(signal.SIGKILL)
                w.proc.wait()
        for w in workers:
            for t in w.threads:
                t.join(timeout=2)
        if failed is not None:
            # the root cause is the earliest failure that its peers did not cause: a rank whose collective
            # failed because another rank left can exit first (the leaving rank may still be shutting down)
            bad = sorted((w for w in workers if w.proc.returncode not in (0, None) and w.exit_time is not None
                          and w.exit_time <= failed.exit_time + args.max_failure_timeout), key=lambda w: w.exit_time)
            # (a rank killed by a signal nobody here sent is a root cause even when its exit was noticed late)
            own = [w for w in bad if not any(m in ln for ln in w.tail for m in _PEER_FAILURE)
                   and (w.exit_time <= failed.exit_time or any("Traceback" in ln for ln in w.tail)
                        or (w.proc.returncode < 0 and not w.signalled))]
            root = own[0] if own else failed
            lines = [f"torchlike.distributed.run: worker rank {root.rank} (local_rank {root.local_rank}, "
                     f"pid {root.proc.pid}) failed with exit code {_describe(root.proc.returncode)}",
                     "the other workers were stopped", f"rank {root.rank} error output (last lines):"]
            lines += [f"  {ln}" for ln in root.tail] or ["  <no error output>"]
            print("\n".join(lines), file=sys.stderr)
            sys.stderr.flush()
            return 1
        return 0
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def main(args=None):
    """Entry point of ``python -m torchlike.distributed.run`` (torchrun's command line)."""
    sys.exit(run(parse_args(sys.argv[1:] if args is None else args)))
