"""Two conformance columns over op_db that the main run does not cover: ``vmap`` and ``autocast``.

* vmap: the op's first float32 sample with its input batched (two rows: the input and the input scaled
  by 0.5, so the rows differ), through ``torch.func.vmap`` (the oracle) and ``torchlike.func.vmap``;
  values compared with the op's float32 tolerance. Samples torch's own vmap refuses are skipped with
  torch's reason.
* autocast: the op's first float32 sample inside ``torch.autocast("cpu", dtype=torch.bfloat16)`` and
  ``torchlike.autocast("cpu", dtype=torchlike.bfloat16)``; output dtypes must be identical, values within
  bfloat16 tolerance (rtol=atol=1.6e-2 relative to torch's bf16 result).

    python -m conformance.transforms            # writes conformance/TRANSFORMS_REPORT.md + transforms_report.json
    python -m conformance.transforms -k add -v  # a few ops, printed, nothing written

Random and nondeterministic ops are skipped (counted); each op has a CPU-time limit.
"""
from __future__ import annotations

import argparse
import collections
import itertools
import json
import os
import signal
import sys
import time
import warnings

import torch

import torchlike

from .convert import Converter, Unconvertible, clone_torch
from .opinfo import (RANDOM_OPS, SEEDED_OPS, Mismatch, OpTimeout, _exc_category, _on_alarm, _short, compare,
                     op_key, resolve, skip_reason, tolerances)

__all__ = ["check_vmap", "check_autocast", "run_op_transforms", "main"]

BF16_TOL = dict(rtol=1.6e-2, atol=1.6e-2)
HERE = os.path.dirname(os.path.abspath(__file__))


def _first_float32_sample(op):
    for s in itertools.islice(op.sample_inputs("cpu", torch.float32, requires_grad=False), 8):
        if isinstance(s.input, torch.Tensor) and s.input.dtype == torch.float32 and s.input.numel() > 0:
            return s
    return None


def _call_torch(f, *a, **k):
    try:
        return True, f(*a, **k)
    except Exception as e:  # noqa: BLE001
        return False, e


def check_vmap(op, fn, sample, tol):
    """('pass'|'fail'|'skip', category, detail) for ``sample`` batched along a new leading dim."""
    memo = {}
    x, args, kwargs = clone_torch((sample.input, sample.args, sample.kwargs), memo)
    x = x.detach()
    batch = torch.stack([x, x * 0.5])
    ok, t_out = _call_torch(torch.func.vmap(lambda inp: op.op(inp, *args, **kwargs)), batch)
    if not ok:
        return "skip", "torch.func.vmap raises", f"{type(t_out).__name__}: {_short(t_out, 100)}"
    try:
        conv = Converter(grad=False)
        l_batch, l_args, l_kwargs = conv((batch, tuple(sample.args), dict(sample.kwargs)))
    except Unconvertible as e:
        return "skip", "sample not convertible", str(e)
    try:
        l_out = torchlike.func.vmap(lambda inp: fn(inp, *l_args, **l_kwargs))(l_batch)
    except OpTimeout:
        raise
    except Exception as e:  # noqa: BLE001
        return "fail", _exc_category(e, "torchlike.func.vmap raised"), f"{type(e).__name__}: {_short(e)}"
    try:
        compare(l_out, t_out, tol)
    except Mismatch as m:
        return "fail", m.category, m.detail
    return "pass", "", ""


def check_autocast(op, fn, sample):
    """('pass'|'fail'|'skip', category, detail) for ``sample`` under CPU bfloat16 autocast."""
    memo = {}
    x, args, kwargs = clone_torch((sample.input, sample.args, sample.kwargs), memo)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        ok, t_out = _call_torch(op.op, x.detach(), *args, **kwargs)
    if not ok:
        return "skip", "torch raises under autocast", f"{type(t_out).__name__}: {_short(t_out, 100)}"
    try:
        conv = Converter(grad=False)
        li, la, lk = conv((sample.input, tuple(sample.args), dict(sample.kwargs)))
    except Unconvertible as e:
        return "skip", "sample not convertible", str(e)
    try:
        with torchlike.autocast("cpu", dtype=torchlike.bfloat16):
            l_out = fn(li, *la, **lk)
    except OpTimeout:
        raise
    except Exception as e:  # noqa: BLE001
        return "fail", _exc_category(e, "torchlike raised under autocast"), f"{type(e).__name__}: {_short(e)}"
    try:
        compare(l_out, t_out, BF16_TOL, values=False)  # dtypes and shapes exactly
    except Mismatch as m:
        return "fail", "autocast " + m.category, m.detail
    try:
        compare(l_out, t_out, BF16_TOL)
    except Mismatch as m:
        return "fail", "autocast " + m.category, m.detail
    return "pass", "", ""


def run_op_transforms(op, time_limit=20.0):
    """{'key', 'vmap': [status, category, detail], 'autocast': [...]} for one OpInfo (never raises)."""
    key = op_key(op)
    res = {"key": key}
    reason = skip_reason(op)
    if not reason and (op.name in RANDOM_OPS or op.name in SEEDED_OPS):
        reason = "random op"
    fn = None
    if not reason:
        fn, _ = resolve(op)
        if fn is None:
            reason = "missing in torchlike"
    if reason:
        res["vmap"] = res["autocast"] = ["skip", reason, ""]
        return res
    old = signal.signal(signal.SIGPROF, _on_alarm)
    signal.setitimer(signal.ITIMER_PROF, time_limit)
    try:
        sample = _first_float32_sample(op) if torch.float32 in op.supported_dtypes("cpu") else None
        if sample is None:
            res["vmap"] = res["autocast"] = ["skip", "no float32 sample with a non-empty tensor input", ""]
            return res
        tol = tolerances(op, torch.float32)
        res["vmap"] = list(check_vmap(op, fn, sample, tol))
        res["autocast"] = list(check_autocast(op, fn, sample))
    except OpTimeout:
        for c in ("vmap", "autocast"):
            res.setdefault(c, ["fail", "timeout", f"over {time_limit} s of CPU"])
    except Exception as e:  # noqa: BLE001  (sample_inputs itself failing)
        for c in ("vmap", "autocast"):
            res.setdefault(c, ["skip", "sample_inputs raised", f"{type(e).__name__}: {_short(e, 100)}"])
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
    return res


def _summary(results):
    out = {}
    for col in ("vmap", "autocast"):
        counts = collections.Counter(r[col][0] for r in results)
        cats = collections.Counter(r[col][1] for r in results if r[col][0] == "fail")
        skips = collections.Counter(r[col][1] for r in results if r[col][0] == "skip")
        out[col] = {"pass": counts["pass"], "fail": counts["fail"], "skip": counts["skip"],
                    "fail_categories": cats.most_common(), "skip_reasons": skips.most_common()}
    return out


def _write_report(results, summary, seconds):
    with open(os.path.join(HERE, "transforms_report.json"), "w") as f:  # one op per line: readable diffs
        f.write('{"summary": ' + json.dumps(summary) + ',\n"ops": [\n')
        f.write(",\n".join(json.dumps(r) for r in results) + "\n]}\n")
    lines = ["# vmap and autocast conformance (`python -m conformance.transforms`)", "",
             "Each OpInfo's first float32 sample: under `torch.func.vmap` vs `torchlike.func.vmap` (input batched",
             "along a new dim), and under CPU bfloat16 autocast vs torch's (dtypes exact, values within bf16",
             f"tolerance). {len(results)} OpInfos, {seconds:.0f} s.", "",
             "| column | pass | fail | skip |", "|---|---|---|---|"]
    for col, s in summary.items():
        lines.append(f"| {col} | {s['pass']} | {s['fail']} | {s['skip']} |")
    for col, s in summary.items():
        lines += ["", f"## {col}: failures by category", ""]
        lines += [f"- {n} × {c}" for c, n in s["fail_categories"]] or ["- none"]
        lines += ["", f"## {col}: skips by reason", ""]
        lines += [f"- {n} × {c}" for c, n in s["skip_reasons"]] or ["- none"]
        lines += ["", f"## {col}: failing ops", ""]
        lines += [f"- `{r['key']}`: {r[col][1]} — {r[col][2][:160]}" for r in results if r[col][0] == "fail"] \
            or ["- none"]
    with open(os.path.join(HERE, "TRANSFORMS_REPORT.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m conformance.transforms", description=__doc__.splitlines()[0])
    p.add_argument("-k", action="append", help="only OpInfos whose key contains this (repeatable); writes nothing")
    p.add_argument("-v", action="store_true", help="print each op's outcome")
    p.add_argument("--budget", type=float, default=900.0, help="wall seconds for the whole run")
    a = p.parse_args(argv)
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    from torch.testing._internal.common_methods_invocations import op_db

    from . import sample_lookup
    sample_lookup.install()
    t0 = time.time()
    results = []
    for op in op_db:
        key = op_key(op)
        if a.k and not any(k in key for k in a.k):
            continue
        if time.time() - t0 > a.budget:
            results.append({"key": key, "vmap": ["skip", "time budget exhausted", ""],
                            "autocast": ["skip", "time budget exhausted", ""]})
            continue
        r = run_op_transforms(op)
        results.append(r)
        if a.v:
            print(f"{key:40} vmap={r['vmap'][0]:4} {r['vmap'][1][:50]:50} autocast={r['autocast'][0]:4} "
                  f"{r['autocast'][1][:50]}", flush=True)
    summary = _summary(results)
    for col, s in summary.items():
        print(f"{col}: pass {s['pass']}, fail {s['fail']}, skip {s['skip']}")
    if not a.k:
        _write_report(results, summary, time.time() - t0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
