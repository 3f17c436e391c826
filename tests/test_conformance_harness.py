"""Smoke test of the OpInfo conformance harness itself (conformance/): a few ops, inline."""
import warnings

import pytest
import torch

import torchlike

warnings.filterwarnings("ignore")

opinfo = pytest.importorskip("conformance.opinfo")
from conformance import convert, report  # noqa: E402


def _op(name, variant=""):
    from torch.testing._internal.common_methods_invocations import op_db
    return next(o for o in op_db if o.name == name and o.variant_test_name == variant)


def test_convert_roundtrip_keeps_aliasing_and_grad():
    a = torch.randn(2, 3, requires_grad=True)
    conv = convert.Converter()
    x, (y, n, d, s) = conv((a, (a, 3, torch.float64, torch.Size([2, 3]))))
    assert x is y and x.requires_grad and conv.leaves[0][0] is a
    assert d is torchlike.float64 and tuple(s) == (2, 3) and n == 3
    torch.testing.assert_close(convert.to_torch(x.detach()), a.detach())
    assert convert.to_torch(torchlike.int64) is torch.int64


def test_rebind_lambda_uses_torchlike():
    f = convert.rebind(_op("expand").op)
    r = f(torchlike.ones(3, 1), (3, 4))
    assert isinstance(r, torchlike.Tensor) and tuple(r.shape) == (3, 4)


def test_resolve_names():
    assert opinfo.resolve(_op("add"))[0] is torchlike.add
    assert opinfo.resolve(_op("__radd__"))[0] is torchlike.Tensor.__radd__
    fn, desc = opinfo.resolve(_op("nn.functional.relu"))
    assert desc == "torchlike.nn.functional.relu"
    assert opinfo.skip_reason(_op("sparse.mm", "reduce")) == "sparse-specific op"


@pytest.mark.parametrize("name", ["add", "sum", "abs"])
def test_run_op_passes(name):
    r = opinfo.run_op(_op(name), max_samples=3, max_samples_other=1, time_limit=60)
    st = report.statuses(r)
    assert r["skip"] is None and not r.get("crash"), r
    assert st["forward_float32"] == "pass", r["checks"]
    assert st["grad"] == "pass", r["checks"]
    assert st["method"] == "pass", r["checks"]


def test_mismatch_is_detected(monkeypatch):
    op = _op("sin")
    monkeypatch.setattr(opinfo, "resolve", lambda o: (torchlike.cos, "torchlike.cos (sabotaged)"))
    r = opinfo.run_op(op, max_samples=2, max_samples_other=1, time_limit=60, checks=("forward",))
    t = r["checks"]["forward:float32"]
    assert t["fail"] and "value mismatch" in t["fail_reasons"], t


def test_report_and_expected(tmp_path):
    results = [opinfo.run_op(_op("neg"), max_samples=2, max_samples_other=1, time_limit=60),
               {"key": "zz", "name": "zz", "variant": "", "skip": "sparse-specific op", "checks": {}}]
    for i, r in enumerate(results):
        r["index"] = i
    s = report.summarize(results)
    assert s["columns"]["forward_float32"]["pass"] == 1 and s["skipped"] == {"sparse-specific op": 1}
    report.write_markdown(tmp_path / "R.md", results, s, {"date": "x", "torch": "t", "elapsed": 1, "jobs": 1,
                                                          "method": "m"})
    assert "| neg | pass" in (tmp_path / "R.md").read_text()
    exp = report.expected_from(results)
    assert "forward_float32" in exp["neg"]["pass"]
    assert report.regressions(results, exp) == ([], [])
    results[0]["checks"]["forward:float32"]["fail"] = 1
    reg, _ = report.regressions(results, exp)
    assert reg == ["neg: forward_float32 is fail"]


def test_cli_inline_filter(capsys):
    from conformance.__main__ import main
    rc = main(["-k", "nn.functional.relu6", "--inline", "--no-write", "--max-samples", "2",
               "--max-samples-other", "1"])
    out = capsys.readouterr().out
    assert "nn.functional.relu6" in out and "forward pass float32" in out
    assert rc == 0


# --- compile column ---------------------------------------------------------------------------------
def _compile_run(name, variant="", **kw):
    r = opinfo.run_op(_op(name, variant), max_samples=2, max_samples_other=1, time_limit=120,
                      checks=("forward", "compile"), **kw)
    return r, report.statuses(r)


def test_compile_column_passes_with_named_tuple_output():
    # torch.max(x, dim) returns torch.return_types.max: compiled and eager must both return it
    r, st = _compile_run("max", "reduction_with_dim")
    assert st["forward_float32"] == "pass", r["checks"]
    t = r["checks"]["compile:float32"]
    assert st["compile"] == "pass" and t["pass"] == 2, t
    assert r.get("compile_done") and r["compile_cpu"] >= 0


def test_compile_column_reports_graph_break_with_location():
    r, st = _compile_run("nonzero")
    assert st["forward_float32"] == "pass" and st["compile"] == "break", r["checks"]
    reasons = r["checks"]["compile:float32"]["break_reasons"]
    assert any(k.startswith("GraphBreak at _ops/") and "nonzero" in k for k in reasons), reasons
    s = report.summarize([dict(r, index=0)])
    assert report.compile_totals_line(s) == "compile: 0/1 eager-passing ops give the same result; 1 graph breaks"
    assert list(s["compile"]["ops"]["break"]) == ["nonzero"]


def test_compile_check_detects_wrong_result_and_errors():
    op = _op("sin")
    s = next(iter(op.sample_inputs("cpu", torch.float32)))
    x = convert.Converter(grad=False)(s.input)
    tol = opinfo.tolerances(op, torch.float32)
    assert opinfo.check_compile(torchlike.sin, s, torchlike.sin(x), tol, True).status == "pass"
    wrong = opinfo.check_compile(torchlike.sin, s, torchlike.cos(x), tol, True)
    assert wrong.status == "fail" and wrong.category == "compiled value mismatch", wrong.detail

    def only_eager(a):
        if torchlike.compile.is_compiling():
            raise ValueError("not while compiling")
        return torchlike.sin(a)
    err = opinfo.check_compile(only_eager, s, torchlike.sin(x), tol, True)
    assert err.status == "error" and err.category == "compiled call raised ValueError", err.category


def test_compile_column_in_report_and_gate(tmp_path, monkeypatch):
    def compiled_wrong(a, *args, **kwargs):
        return torchlike.cos(a) if torchlike.compile.is_compiling() else torchlike.sin(a)
    good = opinfo.run_op(_op("sin"), max_samples=2, max_samples_other=1, time_limit=120,
                         checks=("forward", "compile"))
    monkeypatch.setattr(opinfo, "resolve", lambda o: (compiled_wrong, "sin, cos when compiled"))
    bad = opinfo.run_op(_op("sin"), max_samples=2, max_samples_other=1, time_limit=120,
                        checks=("forward", "compile"))
    assert report.statuses(bad)["forward_float32"] == "pass" and report.statuses(bad)["compile"] == "fail"
    good["index"] = bad["index"] = 0
    exp = report.expected_from([good])
    assert "compile" in exp["sin"]["pass"]
    reg, _ = report.regressions([bad], exp)
    assert reg == ["sin: compile is fail"]
    s = report.summarize([bad])
    assert s["compile"]["ops"]["fail"]["sin"].startswith("compiled value mismatch")
    report.write_markdown(tmp_path / "R.md", [bad], s, {"date": "x", "torch": "t", "elapsed": 1, "jobs": 1,
                                                        "method": "m"})
    text = (tmp_path / "R.md").read_text()
    assert "compile: 0/1 eager-passing ops give the same result; 0 graph breaks" in text
    assert "| sin | pass |" in text and "| FAIL |" in text
