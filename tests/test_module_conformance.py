"""Smoke test of the module conformance harness (conformance/module_conformance.py) on three modules."""
import warnings

import pytest
import torch

warnings.filterwarnings("ignore")

mc = pytest.importorskip("conformance.module_conformance")


def _info(name):
    from torch.testing._internal.common_modules import module_db
    return next(m for m in module_db if m.module_cls.__name__ == name)


@pytest.mark.parametrize("name", ["Linear", "BatchNorm1d", "GRUCell"])
def test_module_passes(name):
    r = mc.run_module(_info(name), max_samples=2, max_eval=1, time_limit=120, dtypes=(torch.float32,))
    assert not r["timeout"] and r["skip"] is None, r
    for c in mc.CHECKS:
        assert mc.status(r, c) == "pass", (c, r["checks"][c])


def test_mismatch_is_detected(monkeypatch):
    import torchlike
    # a torchlike.nn.Tanh that computes sigmoid must fail forward with a value mismatch
    monkeypatch.setattr(torchlike.nn, "Tanh", torchlike.nn.Sigmoid)
    r = mc.run_module(_info("Tanh"), max_samples=1, max_eval=1, time_limit=120, dtypes=(torch.float32,))
    assert mc.status(r, "forward_train") == "fail"
    assert "values differ" in r["checks"]["forward_train"]["reasons"][0]
    assert mc.status(r, "repr") == "fail"  # 'Sigmoid()' != 'Tanh()'


def test_compare_nested_and_regressions():
    import torchlike
    t = (torch.ones(2), (torch.zeros(1, dtype=torch.int64), 3))
    mc.compare(t, (torchlike.ones(2), (torchlike.zeros(1, dtype=torchlike.int64), 3)), (1e-4, 1e-5))
    with pytest.raises(mc.Mismatch, match="dtype"):
        mc.compare(t, (torchlike.ones(2), (torchlike.zeros(1), 3)), (1e-4, 1e-5))
    r = {"name": "X", "timeout": False, "checks": {c: {"pass": 0, "fail": 1, "reasons": []} for c in mc.CHECKS}}
    assert mc.regressions([r], {"forward_train": ["X"]}) == [("X", "forward_train")]


def test_strict_checks_pass_on_relu():
    ms = pytest.importorskip("conformance.module_strict")
    r = {"checks": {}}
    ms.run_extra(_info("ReLU"), r, ("forward_nograd", "inplace", "pickle", "train_eval", "non_contiguous", "to"))
    for c in ("forward_nograd", "inplace", "pickle", "train_eval", "non_contiguous"):
        assert r["checks"][c]["pass"] > 0 and r["checks"][c]["fail"] == 0, (c, r["checks"][c])


def test_strict_errors_check_detects_wrong_message(monkeypatch):
    import torchlike
    ms = pytest.importorskip("conformance.module_strict")

    class GroupNorm(torchlike.nn.GroupNorm):
        def __init__(self, num_groups, num_channels, *a, **k):
            if num_channels % num_groups:
                raise ValueError("bad groups")  # torch's text is 'num_channels (10) must be divisible ...'
            super().__init__(num_groups, num_channels, *a, **k)
    monkeypatch.setattr(torchlike.nn, "GroupNorm", GroupNorm)
    r = {"checks": {}}
    ms.run_extra(_info("GroupNorm"), r, ("errors",))
    assert r["checks"]["errors"]["fail"] > 0
    assert "bad groups" in r["checks"]["errors"]["reasons"][0]
