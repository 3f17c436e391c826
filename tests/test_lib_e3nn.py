"""e3nn, the parts that build no FX graph (irreps, rotations, Euler angles and quaternions, spherical harmonics and
their equivariance through Wigner D matrices, Wigner 3j symbols, radial bases, a small invariant model trained a few
steps) under the drop-in runner, compared line by line with the same program under real torch.

e3nn's tensor products, o3.Linear and Gate generate their forward code with torch.fx (fx.Graph, Proxy arithmetic,
GraphModule); torchlike.fx implements those (tests/test_fx.py compares them with torch, including Proxies on a
hand-built Graph as e3nn uses them), but this program does not exercise them yet.
"""
from conftest import lib_program_vs_torch


def test_e3nn_o3_without_fx_matches_torch():
    _, ours = lib_program_vs_torch("lib_e3nn_o3.py", "torch", "e3nn", "opt_einsum_fx", timeout=600, rtol=1e-5)
    assert len(ours) == 14
    assert "sh equivariance below 1e-4 True" in ours and "invariance below 1e-3 True" in ours
