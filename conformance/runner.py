"""Run the OpInfo checks over many ops: in worker subprocesses (crash-isolated, parallel) or inline.

A worker writes one JSON line per op to its log: ``{"start": key}`` before the op and the result dict
after it.  If the worker dies (segfault, OOM), the parent marks the started op as crashed and starts a
new worker that resumes after it, so one bad op never kills the run.
"""
from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

WORKER_ENV = {
    # one thread each: the workers share the machine's cores
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
    "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "JAX_PLATFORMS": "cpu", "TF_CPP_MIN_LOG_LEVEL": "3",
}


def load_ops(filter_=None):
    """op_db entries (index, OpInfo) in op_db order, optionally filtered by substring of the key."""
    warnings.filterwarnings("ignore")
    from torch.testing._internal.common_methods_invocations import op_db

    from . import sample_lookup
    from .opinfo import op_key
    sample_lookup.install()
    out = []
    for i, op in enumerate(op_db):
        if filter_ and not any(f in op_key(op) for f in filter_):
            continue
        out.append((i, op))
    return out


def worker_main(argv):
    """``python -m conformance --worker LOG SHARD NSHARDS DEADLINE OPTS_JSON [RESUME_AFTER_INDEX]``."""
    log, shard, nshards, deadline, opts = argv[0], int(argv[1]), int(argv[2]), float(argv[3]), json.loads(argv[4])
    resume_after = int(argv[5]) if len(argv) > 5 else -1
    import torch
    torch.set_num_threads(1)
    from .opinfo import op_key, run_op
    if opts.pop("strict", False):  # python -m conformance --strict
        from .strict import run_op_strict as run_op
    ops = load_ops(opts.pop("filter", None))
    _freeze_heap()
    done_before = set(opts.pop("skip_indices", ()))
    ops = [(i, op) for i, op in ops if i not in done_before]
    with open(log, "a", buffering=1) as f:
        for pos, (i, op) in enumerate(ops):
            if pos % nshards != shard or i <= resume_after:
                continue
            key = op_key(op)
            if time.time() > deadline:
                f.write(json.dumps({"index": i, "key": key, "name": op.name, "variant": op.variant_test_name,
                                    "skip": "global time budget exhausted", "checks": {}}) + "\n")
                continue
            f.write(json.dumps({"start": key, "index": i}) + "\n")
            _freeze_heap()
            res = run_op(op, **opts)
            res["index"] = i
            f.write(json.dumps(res) + "\n")
    return 0


def _freeze_heap():
    """Collect, then move every live object out of the cycle collector's reach (gc.freeze).

    Each torchlike.compile trace runs a full gc.collect() (to find tensors that escaped the trace); its
    cost grows with the heap, and op_db plus the JAX caches of a few hundred ops make it ~0.3-0.5 s per
    trace.  Freezing before each op leaves only that op's own objects to scan."""
    gc.collect()
    gc.freeze()


def _read_log(path):
    done, started = {}, None
    try:
        with open(path) as f:
            for line in f:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if "start" in rec:
                    started = rec
                else:
                    done[rec["index"]] = rec
                    if started and started["index"] == rec["index"]:
                        started = None
    except FileNotFoundError:
        pass
    return done, started


def run_all(opts, *, jobs=2, budget=840.0, progress=print, total=None):
    """Run every selected op in ``jobs`` worker processes; returns the list of result dicts."""
    deadline = time.time() + budget
    tmp = tempfile.mkdtemp(prefix="conformance-")
    env = dict(os.environ, **WORKER_ENV)
    env["PYTHONPATH"] = os.pathsep.join([os.getcwd()] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    procs = {}

    def start(shard, resume_after=-1):
        log = os.path.join(tmp, f"shard{shard}.jsonl")
        args = [sys.executable, "-m", "conformance", "--worker", log, str(shard), str(jobs), str(deadline),
                json.dumps(opts), str(resume_after)]
        procs[shard] = (subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE), log)

    for s in range(jobs):
        start(s)
    results, shown = {}, set()
    crashed = {}
    while procs:
        time.sleep(0.5)
        for shard, (p, log) in list(procs.items()):
            done, started = _read_log(log)
            done.update(crashed.get(shard, {}))
            for idx, rec in sorted(done.items()):
                if idx not in shown:
                    shown.add(idx)
                    results[idx] = rec
                    progress(rec, len(shown), total)
            if p.poll() is None:
                if time.time() > deadline + 120:  # a worker stuck past the budget: stop it
                    p.kill()
                continue
            err = p.stderr.read().decode(errors="replace") if p.stderr else ""
            del procs[shard]
            if p.returncode != 0:
                if started is not None:  # crashed inside an op: record it, resume after it
                    idx = started["index"]
                    rec = {"index": idx, "key": started["start"], "name": started["start"], "variant": "",
                           "skip": None, "crash": f"worker died (exit {p.returncode}) {err.strip()[-300:]}",
                           "checks": {}, "missing": False}
                    crashed.setdefault(shard, {})[idx] = rec
                    with open(log, "a") as f:
                        f.write(json.dumps(rec) + "\n")
                    start(shard, idx)
                else:
                    sys.stderr.write(f"conformance worker {shard} failed (exit {p.returncode}):\n{err[-3000:]}\n")
    return [results[i] for i in sorted(results)]


def load_previous(path):
    """Results of an interrupted run: a report.json, or a directory of worker shard logs."""
    if os.path.isdir(path):
        recs = {}
        for name in sorted(os.listdir(path)):
            if name.endswith(".jsonl"):
                recs.update(_read_log(os.path.join(path, name))[0])
    else:
        with open(path) as f:
            recs = {r["index"]: r for r in json.load(f)["ops"]}
    # ops the budget never reached are not results
    return {i: r for i, r in recs.items() if not str(r.get("skip", "")).startswith(("global time budget", "not run"))}


def run_inline(opts, progress=print):
    """Run in this process (for tests and debugging)."""
    from .opinfo import run_op
    if opts.pop("strict", False):  # python -m conformance --strict
        from .strict import run_op_strict as run_op
    filt = opts.pop("filter", None)
    skip = set(opts.pop("skip_indices", ()))
    ops = [(i, op) for i, op in load_ops(filt) if i not in skip]
    out = []
    for n, (i, op) in enumerate(ops, 1):
        _freeze_heap()  # as in worker_main
        r = run_op(op, **opts)
        r["index"] = i
        out.append(r)
        progress(r, n, len(ops))
    return out
