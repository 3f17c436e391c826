"""torch-optimizer (ten third-party optimizers: Lamb, RAdam, Ranger, Shampoo, MADGRAD, Adahessian with create_graph,
Lookahead wrapping Yogi, ...) under the drop-in runner, compared loss by loss with real torch. Lamb passes a
0-dim tensor as ``alpha=`` to ``add_`` (a Scalar argument given as a tensor), which used to fail."""
from conftest import lib_program_vs_torch


def test_torch_optimizer_optimizers_match_torch():
    _, ours = lib_program_vs_torch("lib_torch_optimizer.py", "torch", "torch_optimizer", timeout=600, rtol=2e-5)
    assert len(ours) == 10 and ours[3].startswith("Lamb ")
