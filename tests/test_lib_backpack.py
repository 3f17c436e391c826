"""BackPACK 1.7.1 (``backpack-for-pytorch``) under the drop-in runner, compared line by line with real torch: a
CNN and an MLP ``extend``-ed with BackPACK computing per-sample gradients and the first-order extensions, the
diagonal GGN/Hessian, its symmetric factorisation, the Kronecker factors (KFLR, KFAC, KFRA), Hessian-free
products, a DP-SGD loop clipping per-sample gradients, and the ``use_converter`` path (``torch.fx``). BackPACK
passes its quantities between modules keyed by the outputs' ``data_ptr`` through full backward hooks, so a
hooked module's output must share its result's storage (tests/test_autograd_function_views.py)."""
from conftest import lib_program_vs_torch


def test_backpack_extensions_like_torch():
    _, ours = lib_program_vs_torch("lib_backpack.py", "backpack", timeout=600, rtol=1e-4)
    assert len(ours) == 44, ours
    assert ours[0] == "loss 1.4181", ours[0]
    checks = [line for line in ours if line.strip().startswith(("check", "sqrt check"))]
    assert len(checks) == 12 and all("False" not in line for line in checks), checks
    assert ours[13].startswith("diag 0.weight 0.7797 0.6707 (3, 8, 3, 1, 3, 3)"), ours[13]
    assert ours[25].startswith("kron 0.weight [(3, 3), (9, 9)]"), ours[25]
    assert ours[42] == "converted GraphModule ['GraphModule', 'Linear', 'ReLU', 'SumModule']", ours[42]
    assert ours[43].startswith("converter grads True 1.1963"), ours[43]
