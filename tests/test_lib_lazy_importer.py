"""lazy-importer deferring ``import torch`` / ``from torch import nn`` / ``import torch.nn.functional as F``
(``__lazy_modules__``): proxies resolve to the runner's torch on first use, a class on a lazy ``nn.Module`` base
gets torch's MRO, and a small model trains, line by line as under real torch."""
from conftest import lib_program_vs_torch


def test_lazy_torch_imports_resolve_like_torch():
    _, ours = lib_program_vs_torch("lib_lazy_importer.py", "torch", "lazy_importer", timeout=600, rtol=1e-4)
    assert ours[0] == "proxy before use _Proxy _Proxy _Proxy"
    assert ours[2] == "mro ['Net', 'Module', 'object'] True"
    assert ours[-1] == "F.relu [0.0, 2.0] True"
    assert len(ours) == 9
