"""share_memory_: torch shares the storage across processes; torchlike cannot, and says so instead of silently
training nothing in Hogwild-style scripts (docs/differences.md)."""
import importlib
import warnings

import torch

import torchlike

tensor_module = importlib.import_module("torchlike.tensor")


def test_share_memory_warns_once_and_returns_self(monkeypatch):
    monkeypatch.setattr(tensor_module, "_SHARE_WARNED", [])
    m = torchlike.nn.Linear(2, 2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert m.share_memory() is m
        m.share_memory()
    msgs = [str(x.message) for x in w if issubclass(x.category, UserWarning)]
    assert len(msgs) == 1 and "cannot be placed in shared memory" in msgs[0]
    t = torchlike.ones(2)
    assert t.share_memory_() is t
    # torch's share_memory_ also returns the tensor itself (and shares it)
    tt = torch.ones(2)
    assert tt.share_memory_() is tt and tt.is_shared()
