"""``python -m conformance``: run torchlike against PyTorch's OpInfo database.

    python -m conformance                  # full run, writes REPORT.md / report.json, regression gate
    python -m conformance -k add -k linalg # only ops whose key contains one of the substrings (no files written)
    python -m conformance --update-expected   # rewrite expected_pass.json from this run
    python -m conformance --strict -k add     # opt-in strict sweep (conformance/strict.py, STRICT_REPORT.md)
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

METHOD_DOC = """\
For every OpInfo in `torch.testing._internal.common_methods_invocations.op_db` and each of float32,
float64, int64 and bool that it supports on CPU, the harness takes the first {max_samples} samples
(float32) or first {max_samples_other} samples (other dtypes) of `op.sample_inputs('cpu', dtype,
requires_grad=...)`, converts them to torchlike (tensors via numpy, dtypes/Size/device mapped, aliasing
kept) and compares torchlike's result with torch's using `torch.testing.assert_close` (values, shapes,
dtypes; `equal_nan=True`; the OpInfo's CPU `toleranceOverride` where it declares one, else the
defaults).  When torch raises on a sample, torchlike must raise the same exception type.
- **forward**: the functional form, resolved as `torchlike.<op.name>` (dotted names map to
  `torchlike.linalg/special/fft/nn.functional`), `Tensor.<dunder>`, or - for OpInfos whose `op` is a
  lambda written against torch - the same lambda re-bound so that `torch` means `torchlike`.  An op passes
  forward for a dtype when all of its samples of that dtype match.
- **grad**: float32 and float64 when `op.supports_autograd`: vector-Jacobian product of the outputs
  (after the sample's `output_process_fn_grad`) with the same random cotangent in both frameworks, with
  respect to every input that requires grad (tolerance float32 rtol=1e-4/atol=1e-5, float64 1e-7).
- **method** / **in-place**: `op.method_variant` / `op.inplace_variant` on grad-free copies of the same
  samples (in-place must also return `self` and leave the same values in it).
- **error_inputs**: `op.error_inputs('cpu')` through the functional form; the exception must be an
  instance of the ErrorInput's `error_type`; regex matches of the message are reported separately.
- **compile**: for ops whose float32 forward passes, the first {max_compile_samples} float32 samples (those
  where torch did not raise) go through a fresh `torchlike.compile(lambda *a, **k: fn(*a, **k),
  fullgraph=True)` of the same functional form (tensors are its arguments, everything else a static
  guard; inputs do not require grad) and must give torchlike's eager result (same output type, shapes,
  dtypes; values within the op's float32 tolerance).  *break*: the call cannot be captured in one graph
  (`.item()`, data-dependent shapes...; torchlike.compile would run it eagerly), with the exception and
  the torchlike source line; *error*: the compiled call raised.  Runs after the other checks.
- Random ops (dropout, bernoulli, normal, ...) and uninitialised ones (empty*) are compared on shapes
  and dtypes only, and have no grad check; so are the attention samples with active dropout
  (`scaled_dot_product_attention` with `dropout_p > 0`, `multi_head_attention_forward` in training).
- Per-op limit {time_limit:.0f} CPU seconds (SIGPROF; 10x that in wall time); global budget {budget:.0f} s; {jobs} worker processes
  (a crashing op is recorded and its worker restarted).
"""


def _progress_fn(quiet, verbose=False):
    from .report import statuses

    def progress(r, n, total):
        if quiet:
            return
        st = statuses(r)
        tail = r.get("skip") or r.get("crash") or ("TIMEOUT" if r.get("timeout") else "")
        e = r.get("errors") or {}
        es = f" err={e['type_match']}/{e['total']}" if e.get("total") else ""
        line = (f"[{n}/{total or '?'}] {r['key']:<45} fwd={st['forward_float32']:<7} grad={st['grad']:<7} "
                f"method={st['method']:<7} inplace={st['inplace']:<7} compile={st['compile']:<7}{es} {tail}")
        print(line, flush=True)
        if verbose:
            for key, t in r.get("checks", {}).items():
                if t.get("example"):
                    print(f"      {key}: {t['example'][:400]}")
            for x in (r.get("errors") or {}).get("examples", []):
                print(f"      error_inputs: {x}")
    return progress


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        from .runner import worker_main
        return worker_main(argv[1:])
    if "--strict" in argv:  # opt-in strict sweep: its own options and report (conformance/strict.py)
        from .strict import main as strict_main
        return strict_main([x for x in argv if x != "--strict"])
    p = argparse.ArgumentParser(prog="python -m conformance", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-k", action="append", default=None, help="only ops whose key contains this substring")
    p.add_argument("--jobs", "-j", type=int, default=min(2, os.cpu_count() or 1))
    p.add_argument("--max-samples", type=int, default=8, help="samples per op for float32")
    p.add_argument("--max-samples-other", type=int, default=3, help="samples per op for other dtypes")
    p.add_argument("--max-compile-samples", type=int, default=2,
                   help="float32 samples per op run through torchlike.compile (0: no compile column)")
    p.add_argument("--time-limit", type=float, default=20.0, help="seconds per OpInfo")
    # 10 min: CI's 90-minute limit on 2 cores holds the ~60-70 min test suite and this gate (a full run took 695 s on
    # an AVX2 EPYC); checks past the budget are listed as not run, never as passed (--budget for a full report)
    p.add_argument("--budget", type=float, default=10 * 60.0, help="seconds for the whole run")
    p.add_argument("--inline", action="store_true", help="run in this process (no workers)")
    p.add_argument("--update-expected", action="store_true", help="rewrite expected_pass.json")
    p.add_argument("--write", action="store_true", help="write REPORT.md/report.json even with -k")
    p.add_argument("--no-write", action="store_true", help="do not write REPORT.md/report.json")
    p.add_argument("--out-dir", default=HERE)
    p.add_argument("--resume", metavar="PATH", help="reuse results of an interrupted run (report.json or "
                                                    "a worker-log directory) and run only the other ops")
    p.add_argument("--from-json", metavar="REPORT_JSON",
                   help="do not run: rebuild REPORT.md / expected / regression check from a report.json")
    p.add_argument("--quiet", "-q", action="store_true")
    p.add_argument("--verbose", "-v", action="store_true", help="print an example failure per check")
    a = p.parse_args(argv)

    from . import report, runner
    opts = dict(max_samples=a.max_samples, max_samples_other=a.max_samples_other, time_limit=a.time_limit,
                max_compile_samples=a.max_compile_samples)
    if a.k:
        opts["filter"] = a.k
    t0 = time.time()
    progress = _progress_fn(a.quiet, a.verbose)
    old_meta = None
    if a.from_json:
        with open(a.from_json) as f:
            data = json.load(f)
        results, old_meta = data["ops"], data["meta"]
        if a.k:
            results = [r for r in results if any(k in r["key"] for k in a.k)]
    elif a.inline:
        results = runner.run_inline(dict(opts), progress)
    else:
        prev = runner.load_previous(a.resume) if a.resume else {}
        if a.k:
            prev = {i: r for i, r in prev.items() if any(k in r["key"] for k in a.k)}
        total = len(runner.load_ops(a.k))
        results = runner.run_all(dict(opts, skip_indices=sorted(prev)), jobs=max(1, a.jobs), budget=a.budget,
                                 progress=progress, total=total - len(prev))
        if prev:
            keys = {r["key"] for r in results}
            results = sorted(results + [r for r in prev.values() if r["key"] not in keys], key=lambda r: r["index"])
    elapsed = time.time() - t0 if old_meta is None else old_meta["elapsed"]
    import torch
    summary = report.summarize(results)
    meta = old_meta or {"date": report.now(), "torch": torch.__version__, "elapsed": round(elapsed, 1),
                        "jobs": a.jobs, "filter": a.k, "options": opts}
    if not meta.get("method"):
        meta["method"] = METHOD_DOC.format(budget=a.budget, jobs=a.jobs, **{k: v for k, v in opts.items()
                                                                            if k != "filter"})
    c = summary["columns"]
    e = summary["errors"]
    print(f"\n{summary['opinfo_entries']} OpInfo entries, {summary['in_scope']} in scope, "
          f"{summary['implemented']} implemented, {elapsed:.0f} s")
    print(f"forward pass float32: {c['forward_float32'].get('pass', 0)}   grad pass: {c['grad'].get('pass', 0)}   "
          f"method: {c['method'].get('pass', 0)}   inplace: {c['inplace'].get('pass', 0)}   "
          f"error_inputs type match: {e.get('type_match', 0)}/{e.get('total', 0)}")
    print(report.compile_totals_line(summary) + f" (wrong result {c['compile'].get('fail', 0)}, "
          f"error {c['compile'].get('error', 0)})")
    from . import table  # the op table's entries that no OpInfo and no own sample exercises
    uncovered = table.uncovered()
    summary["table_uncovered"] = [".".join(k) for k in uncovered]
    print(f"op table: {len(uncovered)} entries without an OpInfo or own sample (python -m conformance.table)")
    write = (a.write or not a.k) and not a.no_write
    if write:
        report.write_json(os.path.join(a.out_dir, "report.json"), results, summary, meta)
        report.write_markdown(os.path.join(a.out_dir, "REPORT.md"), results, summary, meta,
                              extra=table.markdown_section(uncovered))
        print(f"wrote {os.path.join(a.out_dir, 'REPORT.md')} and report.json")
    exp_path = os.path.join(HERE, "expected_pass.json")
    try:
        with open(exp_path) as f:
            expected = json.load(f)
    except (FileNotFoundError, ValueError):
        expected = {}
    if a.update_expected:
        new = report.expected_from(results)
        if a.k:  # partial run: keep the other ops' entries
            ran = {r["key"] for r in results}
            new = {**{k: v for k, v in expected.items() if k not in ran}, **new}
        with open(exp_path, "w") as f:
            json.dump(dict(sorted(new.items())), f, indent=1)
            f.write("\n")
        print(f"updated {exp_path} ({len(new)} ops)")
        return 0
    reg, not_run = report.regressions(results, expected)
    if not_run:
        print(f"\n{len(not_run)} expected checks did not run (budget/timeout/skip):")
        for x in not_run[:20]:
            print("  ", x)
    if reg:
        print(f"\nREGRESSIONS ({len(reg)}): expected to pass, now failing:")
        for x in reg:
            print("  ", x)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
