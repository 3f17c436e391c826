"""Aggregate per-op results into statuses, totals, REPORT.md, report.json and the expected-pass list."""
from __future__ import annotations

import collections
import datetime
import json

DT_NAMES = ("float32", "float64", "int64", "bool")
CHECK_COLUMNS = ("forward_float32", "forward_float64", "forward_int64", "forward_bool", "grad", "method",
                 "inplace", "compile")
# compile column: pass = compiled result equals eager; fail = it does not; error = the compiled call raised;
# break = torchlike.compile could not capture the call in one graph (it would run eagerly)
COMPILE_BAD = ("fail", "error", "break")


def _combine(tallies):
    tallies = [t for t in tallies if t]
    if not tallies:
        return "skip"
    if any(t["fail"] for t in tallies):
        return "fail"
    return "pass" if any(t["pass"] for t in tallies) else "skip"


def missing_names(r):
    """Names torchlike lacks for this op: the functional form, or attributes a lambda needed."""
    names = set()
    if r.get("missing"):
        names.add((r.get("resolved") or r["name"]).replace("torchlike.", ""))
    for c, t in r.get("checks", {}).items():
        for reason in t.get("fail_reasons", {}):
            if reason.startswith("missing attribute "):
                names.add(reason[len("missing attribute "):].replace("torchlike.", ""))
    return names


def statuses(r):
    """Column -> status ('pass', 'fail', 'skip', 'missing', 'n/a', '-'; compile also 'error', 'break')."""
    st = {}
    checks = r.get("checks", {})
    if r.get("skip"):
        return {c: "-" for c in CHECK_COLUMNS}
    for d in DT_NAMES:
        t = checks.get(f"forward:{d}")
        st[f"forward_{d}"] = "missing" if r.get("missing") else ("n/a" if t is None else _combine([t]))
    g = [checks.get(f"grad:{d}") for d in ("float32", "float64")]
    st["grad"] = "missing" if r.get("missing") else ("n/a" if not any(g) else _combine(g))
    for v in ("method", "inplace"):
        desc = r.get(v)
        ts = [checks.get(f"{v}:{d}") for d in DT_NAMES]
        if desc is None:
            st[v] = "n/a"
        elif desc.startswith("missing"):
            st[v] = "missing"
        else:
            st[v] = _combine(ts)
    if r.get("timeout") or r.get("crash"):  # partial results: unfinished dtypes are unknown unless failed
        done = set(r.get("done_dtypes", ()))
        todo = set(r.get("dtypes", DT_NAMES)) - done
        col_dts = {f"forward_{d}": {d} for d in DT_NAMES}
        col_dts.update(grad={"float32", "float64"}, method=set(DT_NAMES), inplace=set(DT_NAMES))
        for c in CHECK_COLUMNS[:-1]:
            if col_dts[c] & todo and (st[c] in ("pass", "skip") or st[c] == "n/a" and c.startswith("forward")):
                st[c] = "timeout" if r.get("timeout") else "crash"
    # a lambda-based op whose every forward sample died on a missing attribute is a missing op
    f32 = checks.get("forward:float32")
    if f32 and f32["fail"] and not f32["pass"] and all(k.startswith("missing attribute")
                                                         for k in f32["fail_reasons"]):
        for c in CHECK_COLUMNS[:-1]:
            if st[c] == "fail":
                st[c] = "missing"
    st["compile"] = _compile_status(r, st["forward_float32"])
    return st


def _compile_status(r, fwd32):
    """The compile column: only ops whose float32 forward passes eagerly are compiled."""
    if r.get("missing"):
        return "missing"
    if fwd32 != "pass":
        return "n/a"
    t = r.get("checks", {}).get("compile:float32")
    unfinished = (r.get("timeout") or r.get("crash")) and not r.get("compile_done")
    if unfinished and (t is None or t["status"] not in COMPILE_BAD):
        return "timeout" if r.get("timeout") else "crash"
    return "n/a" if t is None else t["status"]  # n/a: a result from before the compile column existed


def family(name):
    """'nn.functional' for 'nn.functional.relu', 'Tensor' for 'Tensor.lu', 'torch' for 'isin'."""
    return name.rsplit(".", 1)[0] if "." in name else "torch"


def summarize(results):
    s = {"opinfo_entries": len(results), "skipped": collections.Counter(), "in_scope": 0, "implemented": 0}
    col = {c: collections.Counter() for c in CHECK_COLUMNS}
    err = collections.Counter()
    sample_fail = collections.defaultdict(collections.Counter)  # check -> reason -> samples
    sample_skip = collections.Counter()
    op_primary = collections.defaultdict(collections.Counter)  # check -> primary reason -> ops
    missing = collections.defaultdict(set)
    lt_exc = collections.Counter()
    for r in results:
        if r.get("skip"):
            s["skipped"][r["skip"]] += 1
            continue
        s["in_scope"] += 1
        st = statuses(r)
        if any(st[f"forward_{d}"] not in ("missing", "n/a") for d in DT_NAMES):
            s["implemented"] += 1
        for c in CHECK_COLUMNS:
            col[c][st[c]] += 1
        for n in missing_names(r):
            missing[family(n)].add(n)
        for v in ("method", "inplace"):
            if st[v] == "missing":
                missing["Tensor"].add(r[v].replace("missing ", ""))
        e = r.get("errors")
        if e and not r.get("missing"):
            err["total"] += e["total"]
            err["type_match"] += e["type_match"]
            err["regex_match"] += e["regex_match"]
            err["skipped"] += e["skipped"]
        for key, t in r.get("checks", {}).items():
            check = key.split(":")[0]
            for reason, n in t["fail_reasons"].items():
                sample_fail[check][reason] += n
                if reason.startswith("torchlike raised") or reason in ("NotImplementedError",
                                                                       "unsupported argument (TypeError)"):
                    lt_exc[reason] += n
            for reason, n in t["skip_reasons"].items():
                sample_skip[f"{check}: {reason}"] += n
        for c, checkname in (("forward_float32", "forward:float32"), ("grad", "grad:")):
            if st[c] == "missing":
                op_primary[c]["missing op"] += 1
            elif st[c] == "fail":
                reasons = collections.Counter()
                for key, t in r["checks"].items():
                    if key.startswith(checkname):
                        reasons.update(t["fail_reasons"])
                op_primary[c][_coarse(reasons.most_common(1)[0][0]) if reasons else "unknown"] += 1
            elif st[c] in ("timeout", "crash"):
                op_primary[c][st[c]] += 1
    s["compile"] = _compile_summary(results)
    s["columns"] = {c: dict(v) for c, v in col.items()}
    s["errors"] = dict(err)
    s["sample_fail_reasons"] = {c: dict(v.most_common()) for c, v in sample_fail.items()}
    s["sample_skip_reasons"] = dict(sample_skip.most_common())
    s["op_primary_fail_reason"] = {c: dict(v.most_common()) for c, v in op_primary.items()}
    s["missing_by_family"] = {k: sorted(v) for k, v in sorted(missing.items())}
    s["torchlike_exceptions"] = dict(lt_exc.most_common())
    s["skipped"] = dict(s["skipped"].most_common())
    return s


def _compile_summary(results):
    """Totals and per-op reasons of the compile column (over ops whose float32 forward passes)."""
    out = {"eager_passing": 0, "status": collections.Counter(), "cpu": 0.0, "cpu_all": 0.0,
           "ops": {k: {} for k in COMPILE_BAD}, "break_reasons": collections.defaultdict(list)}
    for r in results:
        out["cpu_all"] += r.get("cpu", 0.0) or 0.0
        out["cpu"] += r.get("compile_cpu", 0.0) or 0.0
        if r.get("skip"):
            continue
        st = statuses(r)
        if st["forward_float32"] != "pass":
            continue
        out["eager_passing"] += 1
        out["status"][st["compile"]] += 1
        if st["compile"] in COMPILE_BAD:
            t = r["checks"]["compile:float32"]
            reasons = t.get(f"{st['compile']}_reasons" if st["compile"] != "fail" else "fail_reasons") or {}
            reason = max(reasons, key=reasons.get) if reasons else "unknown"
            out["ops"][st["compile"]][r["key"]] = t.get("example") or reason
            if st["compile"] == "break":
                out["break_reasons"][reason].append(r["key"])
    out["status"] = dict(out["status"])
    out["break_reasons"] = dict(sorted(out["break_reasons"].items(), key=lambda kv: -len(kv[1])))
    out["cpu"], out["cpu_all"] = round(out["cpu"], 1), round(out["cpu_all"], 1)
    return out


def compile_totals_line(summary):
    """'compile: N/M eager-passing ops give the same result; K graph breaks'."""
    cs = summary["compile"]
    st = cs["status"]
    return (f"compile: {st.get('pass', 0)}/{cs['eager_passing']} eager-passing ops give the same result; "
            f"{st.get('break', 0)} graph breaks")


def _coarse(reason):
    if reason.startswith("missing attribute"):
        return "missing op/attribute"
    return reason


def _pct(a, b):
    return f"{100.0 * a / b:.1f}%" if b else "n/a"


_ICON = {"pass": "pass", "fail": "FAIL", "skip": "skip", "missing": "missing", "n/a": "", "-": "-",
         "timeout": "timeout", "crash": "crash", "error": "ERROR", "break": "break"}


def write_markdown(path, results, summary, meta, extra=""):
    c = summary["columns"]
    e = summary["errors"]
    L = []
    L.append("# torchlike conformance against PyTorch's OpInfo database\n")
    L.append(f"Generated {meta['date']} by `python -m conformance` (torch {meta['torch']}, "
             f"{meta['elapsed']:.0f} s, {meta['jobs']} worker(s)).\n")
    if meta.get("note"):
        L.append(f"Note: {meta['note']}\n")
    L.append("## Totals\n")
    L.append("| metric | value |\n|---|---|")
    L.append(f"| OpInfo entries | {summary['opinfo_entries']} ({summary['in_scope']} in scope, "
             f"{sum(summary['skipped'].values())} skipped) |")
    L.append(f"| forward pass (float32) | **{c['forward_float32'].get('pass', 0)}** "
             f"(fail {c['forward_float32'].get('fail', 0)}, missing {c['forward_float32'].get('missing', 0)}, "
             f"no float32 {c['forward_float32'].get('n/a', 0)}) |")
    for d in ("float64", "int64", "bool"):
        L.append(f"| forward pass ({d}) | {c[f'forward_{d}'].get('pass', 0)} (fail {c[f'forward_{d}'].get('fail', 0)}) |")
    L.append(f"| grad (VJP) pass, float32+float64 | **{c['grad'].get('pass', 0)}** (fail {c['grad'].get('fail', 0)}) |")
    L.append(f"| method variant pass | {c['method'].get('pass', 0)} (fail {c['method'].get('fail', 0)}, "
             f"missing {c['method'].get('missing', 0)}) |")
    L.append(f"| in-place variant pass | {c['inplace'].get('pass', 0)} (fail {c['inplace'].get('fail', 0)}, "
             f"missing {c['inplace'].get('missing', 0)}) |")
    L.append(f"| error_inputs: torch's exception type (implemented ops) | **{_pct(e.get('type_match', 0), e.get('total', 0))}** "
             f"({e.get('type_match', 0)}/{e.get('total', 0)}) |")
    L.append(f"| error_inputs: message matches torch's regex | {_pct(e.get('regex_match', 0), e.get('total', 0))} "
             f"({e.get('regex_match', 0)}/{e.get('total', 0)}; {e.get('skipped', 0)} not convertible) |")
    cst = summary["compile"]["status"]
    L.append(f"| torchlike.compile vs eager (float32) | **{compile_totals_line(summary)}** "
             f"(wrong result {cst.get('fail', 0)}, error {cst.get('error', 0)}, skip {cst.get('skip', 0)}, "
             f"timeout {cst.get('timeout', 0) + cst.get('crash', 0)}) |")
    L.append("")
    L.append("### Skipped OpInfo entries\n")
    L.append("| reason | entries |\n|---|---|")
    for k, v in summary["skipped"].items():
        L.append(f"| {k} | {v} |")
    L.append("\n### Method\n")
    L.append(meta["method"])
    L.append("\n### Top failure reasons (ops, by most common failing-sample reason)\n")
    for col in ("forward_float32", "grad"):
        L.append(f"**{col}**\n")
        L.append("| reason | ops |\n|---|---|")
        for k, v in list(summary["op_primary_fail_reason"].get(col, {}).items())[:20]:
            L.append(f"| {k} | {v} |")
        L.append("")
    L.extend(_compile_section(summary))
    L.append("### Failing samples by reason\n")
    L.append("| check | reason | samples |\n|---|---|---|")
    for chk, d in summary["sample_fail_reasons"].items():
        for k, v in list(d.items())[:12]:
            L.append(f"| {chk} | {k} | {v} |")
    L.append("\n### Skipped samples by reason\n")
    L.append("| reason | samples |\n|---|---|")
    for k, v in list(summary["sample_skip_reasons"].items())[:30]:
        L.append(f"| {k} | {v} |")
    L.append("\n### Exceptions raised by torchlike where torch succeeded (samples)\n")
    L.append("| exception | samples |\n|---|---|")
    for k, v in summary["torchlike_exceptions"].items():
        L.append(f"| {k} | {v} |")
    L.append("\n### Missing in torchlike, by family\n")
    for fam, names in summary["missing_by_family"].items():
        L.append(f"- **{fam}** ({len(names)}): {', '.join(names)}")
    L.append("\n## Per op\n")
    L.append("Columns: forward per dtype, grad (VJP, float32+float64), method, in-place, compile (compiled vs "
             "eager, float32), error_inputs (type matches / total), first failure.\n")
    L.append("| op | fwd f32 | f64 | i64 | bool | grad | method | inplace | compile | errors | first failure |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        st = statuses(r)
        e = r.get("errors")
        es = f"{e['type_match']}/{e['total']}" if e and e.get("total") else ""
        note = r.get("skip") or r.get("crash") or ("timeout" if r.get("timeout") else "") or _first_failure(r)
        note = (note or "").replace("|", "\\|").replace("\n", " ")[:160]
        L.append(f"| {r['key']} | " + " | ".join(_ICON.get(st[cn], st[cn]) for cn in CHECK_COLUMNS)
                 + f" | {es} | {note} |")
    if extra:
        L.append("\n" + extra)
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def _cell(x, n=160):
    return str(x).replace("|", "\\|").replace("\n", " ")[:n]


def _compile_section(summary):
    cs = summary["compile"]
    L = ["### torchlike.compile\n"]
    share = f" ({_pct(cs['cpu'], cs['cpu_all'] - cs['cpu'])} on top of the other checks)" if cs["cpu_all"] else ""
    L.append(f"{compile_totals_line(summary)}.  CPU time of the compile check: {cs['cpu']:.0f} s{share}.\n")
    for st, title in (("fail", "Compiled result differs from eager"), ("error", "Compiled call raised"),
                      ("break", "Graph breaks (the call cannot be captured in one graph; torchlike.compile "
                                "would run it eagerly)")):
        ops = cs["ops"].get(st) or {}
        L.append(f"**{title}** ({len(ops)})\n")
        if ops and st != "break":
            L.append("| op | reason |\n|---|---|")
            L.extend(f"| {k} | {_cell(v, 300)} |" for k, v in ops.items())
        L.append("")
    if cs["break_reasons"]:
        L.append("| graph break reason | ops |\n|---|---|")
        L.extend(f"| {_cell(k, 200)} | {', '.join(v)} |" for k, v in cs["break_reasons"].items())
        L.append("")
    return L


def _first_failure(r):
    if r.get("missing"):
        return f"missing {r.get('resolved')}"
    for key in sorted(r.get("checks", {}), key=lambda k: (not k.startswith("forward:float32"), k)):
        ex = r["checks"][key].get("example")
        if ex:
            return f"{key}: {ex}"
    return ""


def expected_from(results):
    """{key: {"pass": [columns that pass], "errors_type_match": n}} for the regression gate."""
    out = {}
    for r in results:
        if r.get("skip"):
            continue
        st = statuses(r)
        passing = [c for c in CHECK_COLUMNS if st[c] == "pass"]
        e = r.get("errors") or {}
        if passing or e.get("type_match"):
            out[r["key"]] = {"pass": passing, "errors_type_match": e.get("type_match", 0)}
    return out


def regressions(results, expected):
    """(regressions, not_run): lists of 'key: column' strings where an expected pass no longer passes."""
    reg, not_run = [], []
    for r in results:
        exp = expected.get(r["key"])
        if not exp:
            continue
        if r.get("skip"):
            not_run.append(f"{r['key']}: {r['skip']}")
            continue
        st = statuses(r)
        for c in exp.get("pass", []):
            if st.get(c) == "pass":
                continue
            if c == "compile" and st.get(c) == "n/a":  # not compiled: the forward regression says why
                if st.get("forward_float32") == "pass":
                    not_run.append(f"{r['key']}: compile did not run")
                continue
            (not_run if st.get(c) in ("skip", "timeout") else reg).append(f"{r['key']}: {c} is {st.get(c)}")
        e = r.get("errors") or {}
        if e.get("type_match", 0) < exp.get("errors_type_match", 0) and not r.get("timeout"):
            reg.append(f"{r['key']}: error_inputs type matches {e.get('type_match', 0)} < "
                       f"{exp['errors_type_match']}")
    return reg, not_run


def write_json(path, results, summary, meta):
    with open(path, "w") as f:
        json.dump({"meta": meta, "summary": summary, "ops": results}, f, indent=1, sort_keys=False)
        f.write("\n")


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
