"""The opt-in strict OpInfo sweep (``python -m conformance --strict``): its dtypes, non-contiguous copies,
``out=`` check and status aggregation, on a couple of cheap ops."""
import pytest

torch = pytest.importorskip("torch", reason="the OpInfo database is torch's")
pytest.importorskip("expecttest", reason="torch.testing._internal needs expecttest")

from conformance import convert, strict  # noqa: E402
from conformance.opinfo import op_key  # noqa: E402


def _op(key):
    from torch.testing._internal.common_methods_invocations import op_db
    return next(op for op in op_db if op_key(op) == key)


def test_strict_dtypes_cover_the_opinfo_cpu_dtypes():
    op = _op("neg")
    names = [n for n, _ in strict.strict_dtypes(op)]
    expected = {str(d).replace("torch.", "") for d in op.supported_dtypes("cpu")} - set(strict.NOT_STORED)
    assert set(names) == expected
    assert names[:2] == ["float32", "float64"]
    assert [n for n, _ in strict.strict_dtypes(op, ["float16", "int8"])] == ["float16", "int8"]


def test_noncontiguous_conversion_on_both_sides():
    t = torch.arange(6.0).reshape(2, 3)
    convert.NONCONTIGUOUS = True
    try:
        tc = convert.clone_torch(t)
        lc = convert.Converter(grad=False)(t)
    finally:
        convert.NONCONTIGUOUS = False
    assert not tc.is_contiguous() and not lc.is_contiguous()
    assert tc.stride() == tuple(lc.stride()) == (6, 2)
    assert torch.equal(tc, t) and lc.tolist() == t.tolist()
    assert convert.clone_torch(t).is_contiguous()  # the default run is unchanged


def test_run_op_strict_records_every_check():
    r = strict.run_op_strict(_op("neg"), time_limit=120, max_samples=2, dtypes=["float32", "float64", "int8"])
    assert not r["timeout"] and r["done"] == ["float32", "float64", "int8"]
    for key in ("forward:float32", "forward:int8", "noncontig:float32", "out:float32", "grad:float64",
                "grad_nc:float64"):
        assert r["checks"][key]["pass"] > 0, key
    st = strict.op_status(r)
    assert st["forward"] == "pass" and st["grad"] == "pass" and st["forward:int8"] == "pass"
