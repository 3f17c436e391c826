"""``python -m conformance --strict``: the OpInfo checks over everything an OpInfo offers on CPU.

The default run (``python -m conformance``) looks at the first 8 float32 / 3 float64, int64, bool samples
and one cotangent per sample.  Strict mode, opt-in and never part of the CI run, takes for each OpInfo:

- **forward**: every sample of ``op.reference_inputs('cpu', dtype)`` (that is ``sample_inputs`` plus the
  OpInfo's extra reference inputs where it declares them) for *every* dtype of
  ``op.supported_dtypes('cpu')`` that torchlike has (float16, bfloat16, complex64/128, the integer types...);
- **noncontig**: every ``op.sample_inputs`` sample of float32, int64 and complex64 (as torch's
  test_noncontiguous_samples) with each tensor made non-contiguous in both frameworks (``noncontiguous_like``);
- **out**: for ``op.supports_out`` ops, every float32/float64/int64 sample called with ``out=`` tensors of the
  result's shape and dtype: torchlike must write torch's values into them and return them;
- **grad**: the vector-Jacobian product over float64 for every reference input, and over its
  non-contiguous samples (``grad_nc``).

Results merge into ``strict_report.json`` (per op, replaced by key, so ``-k`` chunks accumulate) and
``STRICT_REPORT.md`` is rebuilt from it; the default REPORT.md / report.json are never touched.

    nice -n 10 python -m conformance --strict -k nn.functional.l   # one chunk
    python -m conformance --strict --from-json                      # rebuild STRICT_REPORT.md only
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import signal
import sys
import time

import torch

from . import convert
from .convert import _TL_DTYPES
from .opinfo import (RANDOM_OPS, SEEDED_OPS, OpTimeout, Outcome, Tally, _call, _exc_category, _fail, _on_alarm, _seeded,
                     _short, _skip, _torch_args, check_forward_and_grad, compare_outputs, op_key, random_sample, resolve,
                     skip_reason, tolerances, Mismatch, PASS, Unconvertible)

HERE = os.path.dirname(os.path.abspath(__file__))
DTYPE_ORDER = ("float32", "float64", "int64", "bool", "float16", "bfloat16", "complex64", "complex128",
               "int32", "int16", "int8", "uint8", "uint16", "uint32", "uint64", "complex32")
NONCONTIG_DTYPES = ("float32", "int64", "complex64")
OUT_DTYPES = ("float32", "float64", "int64")
MAX_EXAMPLES = 4  # failing samples recorded per (check, dtype)


# dtypes torchlike names but stores as another (complex32 is complex64: JAX has no complex32); reported apart
NOT_STORED = ("complex32",)


def strict_dtypes(op, only=None):
    """[(name, torch dtype)] of the op's CPU dtypes that torchlike has, in DTYPE_ORDER (``only``: a subset)."""
    sup = op.supported_dtypes("cpu")
    have = {str(d).replace("torch.", ""): d for d in sup if d in _TL_DTYPES}
    return [(n, have[n]) for n in DTYPE_ORDER if n in have and n not in NOT_STORED and (not only or n in only)]


def _out_like(x):
    if isinstance(x, torch.Tensor):
        return torch.zeros_like(x.detach())
    if isinstance(x, (tuple, list)) and x and all(isinstance(v, torch.Tensor) for v in x):
        return tuple(torch.zeros_like(v.detach()) for v in x)
    return None


def check_out(op, fn, sample, tol, values):
    """``out=`` tensors shaped like torch's result: torchlike must fill them with torch's values and
    return them (the same objects)."""
    ti, ta, tk = _torch_args(sample, False, {})
    t_ok, expected = _call(_seeded(op, op.op), ti, ta, tk)
    if not t_ok:
        return _skip("torch raised on this sample")
    t_out = _out_like(expected)
    if t_out is None:
        return _skip("result is not a tensor or tuple of tensors")
    t_ok, t_ret = _call(_seeded(op, op.op), ti, ta, dict(tk, out=t_out))
    if not t_ok:
        return _skip(f"torch raised with out= ({type(t_ret).__name__})")
    conv = convert.Converter(grad=False)
    try:
        li, la, lk = conv((sample.input, tuple(sample.args), dict(sample.kwargs)))
        l_out = convert.Converter(grad=False)(t_out)
    except Unconvertible as e:
        return _skip(f"sample not convertible: {e}")
    l_ok, l_ret = _call(_seeded(op, fn), li, la, dict(lk, out=l_out))
    if not l_ok:
        return _fail("out=: " + _exc_category(l_ret), f"{type(l_ret).__name__}: {_short(l_ret)}")
    if t_ret is None:  # a list out= (split_copy, unbind_copy): torch fills it and returns None
        same = l_ret is None
    else:
        same = l_ret is l_out if isinstance(l_out, torchlike_Tensor()) else (
            isinstance(l_ret, (tuple, list)) and len(l_ret) == len(l_out) and
            all(a is b for a, b in zip(l_ret, l_out)))
    if not same:
        return _fail("out=: result is not " + ("None, as torch's" if t_ret is None else "the out tensor(s)"),
                     type(l_ret).__name__)
    try:
        compare_outputs(op, sample, l_out, t_out, tol, values)
    except Mismatch as m:
        return _fail("out=: " + m.category, m.detail)
    return PASS


def torchlike_Tensor():
    import torchlike  # lazy: keeps this module's import light
    return torchlike.Tensor


class _Recorder:
    def __init__(self):
        self.tallies = collections.defaultdict(Tally)
        self.examples = collections.defaultdict(list)

    def add(self, check, dname, label, o: Outcome):
        self.tallies[(check, dname)].add(o)
        ex = self.examples[(check, dname)]
        if o.status == "fail" and len(ex) < MAX_EXAMPLES:
            ex.append(f"{label}: {o.category}: {_short(o.detail, 220)}")


def _samples(op, dt, grad, reference):
    it = op.reference_inputs("cpu", dt, requires_grad=grad) if reference else \
        op.sample_inputs("cpu", dt, requires_grad=grad)
    return list(it)


def run_op_strict(op, *, time_limit=60.0, max_samples=None, noncontig=True, reference=True, out=True,
                  grad=True, dtypes=None, **_ignored):
    """Strict checks for one OpInfo; a JSON-able dict (never raises)."""
    key = op_key(op)
    res = {"key": key, "name": op.name, "variant": op.variant_test_name, "skip": None, "missing": False,
           "checks": {}, "examples": {}, "timeout": False, "dtypes": [], "done": []}
    t0 = time.process_time()
    reason = skip_reason(op)
    if reason:
        res["skip"] = reason
        return res
    fn, desc = resolve(op)
    res["resolved"] = desc
    if fn is None:
        res["missing"] = True
        return res
    values = op.name not in RANDOM_OPS
    rec = _Recorder()
    old = (signal.signal(signal.SIGALRM, _on_alarm), signal.signal(signal.SIGPROF, _on_alarm))
    signal.setitimer(signal.ITIMER_PROF, time_limit)
    signal.setitimer(signal.ITIMER_REAL, 10 * time_limit)
    dts = strict_dtypes(op, dtypes)
    res["dtypes"] = [n for n, _ in dts]
    res["not_stored"] = [n for n in NOT_STORED if getattr(torch, n) in op.supported_dtypes("cpu")]
    try:
        for dname, dt in dts:
            tol = tolerances(op, dt)
            want_grad = grad and dname == "float64" and op.supports_autograd and values
            try:
                samples = _samples(op, dt, want_grad, reference)[:max_samples]
            except OpTimeout:
                raise
            except Exception as e:  # noqa: BLE001
                rec.add("forward", dname, "inputs", _skip(f"sample_inputs raised {type(e).__name__}"))
                samples = []
            for i, s in enumerate(samples):
                sv = values and not random_sample(op, s)
                f, g = check_forward_and_grad(op, fn, s, dname, tol, sv, want_grad and sv, seed=i)
                rec.add("forward", dname, f"sample {i}", f)
                if g is not None:
                    rec.add("grad", dname, f"sample {i}", g)
                if out and op.supports_out and dname in OUT_DTYPES:
                    rec.add("out", dname, f"sample {i}", check_out(op, fn, s, tol, sv))
            if noncontig and (dname in NONCONTIG_DTYPES or want_grad):
                try:
                    samples = list(op.sample_inputs("cpu", dt, requires_grad=want_grad))[:max_samples]
                except OpTimeout:
                    raise
                except Exception:  # noqa: BLE001  (already recorded above)
                    samples = []
                convert.NONCONTIGUOUS = True
                try:
                    for i, s in enumerate(samples):
                        # a seeded random op fills a non-contiguous tensor in another order: structure only
                        sv = values and not random_sample(op, s) and op.name not in SEEDED_OPS
                        f, g = check_forward_and_grad(op, fn, s, dname, tol, sv, want_grad and sv, seed=i)
                        if dname in NONCONTIG_DTYPES:
                            rec.add("noncontig", dname, f"noncontiguous sample {i}", f)
                        if g is not None:
                            rec.add("grad_nc", dname, f"noncontiguous sample {i}", g)
                finally:
                    convert.NONCONTIGUOUS = False
            res["done"].append(dname)
    except OpTimeout:
        res["timeout"] = True
    except Exception as e:  # noqa: BLE001
        res["crash"] = f"{type(e).__name__}: {_short(e)}"
    finally:
        convert.NONCONTIGUOUS = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGALRM, old[0])
        signal.signal(signal.SIGPROF, old[1])
    res["checks"] = {f"{c}:{d}": t.to_json() for (c, d), t in rec.tallies.items()}
    res["examples"] = {f"{c}:{d}": v for (c, d), v in rec.examples.items() if v}
    res["cpu"] = round(time.process_time() - t0, 2)
    return res


# --- aggregation -------------------------------------------------------------------------------------
FWD_CHECKS = ("forward", "noncontig", "out")


def op_status(r):
    """{'forward:<dtype>': status, 'forward': status, 'grad': status} with status pass/fail/timeout/..."""
    if r.get("skip"):
        return {}
    if r.get("missing"):
        return {"forward": "missing", "grad": "missing"}
    checks = r.get("checks", {})
    done = set(r.get("done", ()))
    st = {}
    for d in r.get("dtypes", ()):
        if d in NOT_STORED:  # results recorded before complex32 was set apart
            continue
        ts = [checks.get(f"{c}:{d}") for c in FWD_CHECKS]
        ts = [t for t in ts if t]
        if any(t["fail"] for t in ts):
            s = "fail"
        elif d not in done:
            s = "timeout" if r.get("timeout") else "crash"
        else:
            s = "pass" if any(t["pass"] for t in ts) else "skip"
        st[f"forward:{d}"] = s
    per = [v for k, v in st.items()]
    st["forward"] = "fail" if "fail" in per else ("timeout" if "timeout" in per or "crash" in per else
                                                   ("pass" if "pass" in per else "skip"))
    g = [checks.get(k) for k in ("grad:float64", "grad_nc:float64") if checks.get(k)]
    if any(t["fail"] for t in g):
        st["grad"] = "fail"
    elif "float64" in r.get("dtypes", ()) and "float64" not in done:
        st["grad"] = "timeout"
    else:
        st["grad"] = "pass" if any(t["pass"] for t in g) else "n/a"
    return st


def _default_statuses(path):
    """key -> (forward_float32 pass?, grad pass?) from the default run's report.json."""
    from .report import statuses
    try:
        with open(path) as f:
            ops = json.load(f)["ops"]
    except (OSError, ValueError, KeyError):
        return {}
    out = {}
    for r in ops:
        s = statuses(r)
        fwd = all(s.get(f"forward_{d}") in ("pass", "n/a", "skip") for d in ("float32", "float64", "int64", "bool")) \
            and s.get("forward_float32") == "pass"
        out[r["key"]] = (fwd, s.get("grad") == "pass")
    return out


def write_markdown(path, results, meta):
    default = _default_statuses(os.path.join(HERE, "report.json"))
    rows = [r for r in results if not r.get("skip")]
    per_dtype = collections.defaultdict(collections.Counter)
    tot = collections.Counter()
    reasons = collections.Counter()
    regress_f, regress_g = [], []
    for r in rows:
        st = op_status(r)
        for k, v in st.items():
            if k.startswith("forward:"):
                per_dtype[k.split(":")[1]][v] += 1
        tot["forward_" + st["forward"]] += 1
        tot["grad_" + st["grad"]] += 1
        for ck, t in r.get("checks", {}).items():
            for reason, n in t.get("fail_reasons", {}).items():
                reasons[f"{ck.split(':')[0]}: {reason}"] += n
        d = default.get(r["key"])
        if d and d[0] and st["forward"] in ("fail", "timeout", "crash"):
            regress_f.append(r)
        if d and d[1] and st["grad"] in ("fail", "timeout"):
            regress_g.append(r)
    L = ["# torchlike strict OpInfo conformance", "",
         f"Generated {meta.get('date')} by `python -m conformance --strict` (torch {torch.__version__}); "
         f"{len(results)} OpInfo entries in strict_report.json ({len(rows)} in scope).  "
         "Opt-in: CI runs only the default harness (REPORT.md).", "",
         f"Options of the last chunk: `{json.dumps(meta.get('options', {}))}` (a chunk run under a sample cap "
         "or CPU-time limit sees fewer samples than an uncapped run; ops a chunk's budget never reached are "
         "absent; a timeout counts as neither pass nor fail).", "",
         "Method: " + " ".join(__doc__.split("\n\n")[1].split()), "",
         "## Totals", "", "| metric | pass | fail | timeout/crash | other |", "|---|---|---|---|---|"]
    L.append(f"| forward, every dtype + noncontig + out= | **{tot['forward_pass']}** | {tot['forward_fail']} | "
             f"{tot['forward_timeout'] + tot['forward_crash']} | missing {tot['forward_missing']}, "
             f"skip {tot['forward_skip']} |")
    L.append(f"| grad float64, every sample + noncontig | **{tot['grad_pass']}** | {tot['grad_fail']} | "
             f"{tot['grad_timeout']} | n/a {tot['grad_n/a']}, missing {tot['grad_missing']} |")
    for d in DTYPE_ORDER:
        c = per_dtype.get(d)
        if c:
            L.append(f"| forward {d} | {c['pass']} | {c['fail']} | {c['timeout'] + c['crash']} | "
                     f"skip {c['skip']} |")
    L += ["", f"## Pass the default run, fail strict ({len(regress_f)} forward, {len(regress_g)} grad)", "",
          "| op | failing | first failures (check:dtype - sample: reason) |", "|---|---|---|"]
    for r in sorted({id(r): r for r in regress_f + regress_g}.values(), key=lambda r: r["key"]):
        st = op_status(r)
        bad = [k.split(":", 1)[-1] for k, v in st.items() if k.startswith("forward:") and v != "pass"
               and v != "skip"] + (["grad"] if st["grad"] in ("fail", "timeout") else [])
        ex = [f"{k} - {e}" for k, v in r.get("examples", {}).items() for e in v[:1]][:3]
        if r.get("timeout"):
            ex.append(f"timeout after {r.get('done')}")
        L.append(f"| `{r['key']}` | {', '.join(bad)} | {'<br>'.join(x.replace('|', '/') for x in ex)} |")
    L += ["", "## Failing samples by reason (all ops)", "", "| check: reason | samples |", "|---|---|"]
    for k, n in reasons.most_common(60):
        L.append(f"| {k.replace('|', '/')} | {n} |")
    try:  # hand-written notes of the chunked sweeps (before/after counts per slice), kept across rebuilds
        with open(os.path.join(HERE, "strict_sweeps.md")) as f:
            L += ["", f.read().rstrip()]
    except OSError:
        pass
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def _load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {"meta": {}, "ops": []}


def main(argv):
    p = argparse.ArgumentParser(prog="python -m conformance --strict", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-k", action="append", default=None, help="only ops whose key contains this substring")
    p.add_argument("--jobs", "-j", type=int, default=1)
    p.add_argument("--time-limit", type=float, default=60.0, help="CPU seconds per OpInfo")
    p.add_argument("--budget", type=float, default=9 * 60.0, help="seconds for this chunk")
    p.add_argument("--max-samples", type=int, default=None, help="cap samples per dtype (default: all)")
    p.add_argument("--range", metavar="A:B", help="only op_db indices A <= i < B (chunking a full sweep)")
    p.add_argument("--failing", action="store_true",
                   help="rerun only the ops strict_report.json records as failing or timed out")
    p.add_argument("--dtypes", help="comma-separated subset of dtypes (e.g. float16,bfloat16)")
    p.add_argument("--no-noncontig", action="store_true")
    p.add_argument("--no-reference", action="store_true")
    p.add_argument("--no-out", action="store_true")
    p.add_argument("--inline", action="store_true", help="run in this process (no workers)")
    p.add_argument("--from-json", action="store_true", help="only rebuild STRICT_REPORT.md")
    p.add_argument("--no-write", action="store_true")
    p.add_argument("--out-dir", default=HERE)
    p.add_argument("--quiet", "-q", action="store_true")
    a = p.parse_args(argv)
    jpath = os.path.join(a.out_dir, "strict_report.json")
    mpath = os.path.join(a.out_dir, "STRICT_REPORT.md")
    data = _load(jpath)
    if not a.from_json:
        from . import runner
        opts = dict(strict=True, time_limit=a.time_limit, max_samples=a.max_samples, noncontig=not a.no_noncontig,
                    reference=not a.no_reference, out=not a.no_out,
                    dtypes=a.dtypes.split(",") if a.dtypes else None)
        if a.k:
            opts["filter"] = a.k
        selected = runner.load_ops(a.k)
        if a.failing:
            bad = {r["key"] for r in data["ops"] if op_status(r).get("forward") in ("fail", "timeout", "crash")
                   or op_status(r).get("grad") in ("fail", "timeout")}
            opts["skip_indices"] = [i for i, op in selected if op_key(op) not in bad]
            selected = [(i, op) for i, op in selected if op_key(op) in bad]
        if a.range:
            lo, hi = (int(x) for x in a.range.split(":"))
            opts["skip_indices"] = sorted(set(opts.get("skip_indices", ())) |
                                          {i for i, _ in runner.load_ops(a.k) if not lo <= i < hi})
            selected = [(i, op) for i, op in selected if lo <= i < hi]

        def progress(r, n, total):
            if a.quiet:
                return
            st = op_status(r)
            bad = [k for k, v in st.items() if k.startswith("forward:") and v != "pass"]
            print(f"[{n}/{total or '?'}] {r['key']:<42} fwd={st.get('forward', '-'):<7} "
                  f"grad={st.get('grad', '-'):<7} {r.get('cpu', '')}s {' '.join(bad)} {r.get('skip') or ''}",
                  flush=True)
            for k, v in r.get("examples", {}).items():
                for e in v[:1]:
                    print(f"      {k} {e[:300]}", flush=True)
        if a.inline:
            results = runner.run_inline(dict(opts), progress)
        else:
            results = runner.run_all(dict(opts), jobs=max(1, a.jobs), budget=a.budget, progress=progress,
                                     total=len(selected))
        results = [r for r in results if not str(r.get("skip") or "").startswith("global time budget")]
        by_key = {r["key"]: r for r in data["ops"]}
        by_key.update({r["key"]: r for r in results})
        data = {"meta": {"date": _now(), "options": {k: v for k, v in opts.items()
                                                     if k not in ("filter", "skip_indices")}},
                "ops": sorted(by_key.values(), key=lambda r: r.get("index", 0))}
        n_fail = sum(op_status(r).get("forward") == "fail" for r in results)
        print(f"\n{len(results)} ops run, {n_fail} fail strict forward")
    if not a.no_write:
        with open(jpath, "w") as f:
            json.dump(data, f, indent=0)
            f.write("\n")
        write_markdown(mpath, data["ops"], data["meta"])
        print(f"wrote {mpath} and strict_report.json ({len(data['ops'])} ops)")
    return 0


def _now():
    from .report import now
    return now()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
