"""opt_einsum_fx under the drop-in runner, compared with real torch: its optimizer rebuilds einsums through
opt_einsum's torch backend, ``torch.einsum(eq, [operands])`` on fx Proxies; torch.fx must record the operands flat
(``einsum(eq, a, b)``) as torch's Python passes them, or opt_einsum_fx's shape propagation fails on a tuple."""
from conftest import lib_program_vs_torch


def test_opt_einsum_fx_optimizes_like_torch():
    _, ours = lib_program_vs_torch("lib_opt_einsum_fx.py", "torch", "opt_einsum_fx", timeout=300, rtol=1e-4)
    assert any(line.startswith("optimized ") for line in ours)
