"""torchdiffeq (odeint with adaptive and fixed-grid solvers, neural-ODE training by backpropagation and by the
adjoint method, odeint_event) under the drop-in runner, compared line by line with the same program under real
torch; and the ``.data`` version-counter behaviour its adaptive solvers rely on.
"""
import pytest
import torch

import torchlike
from conftest import lib_program_vs_torch


def test_torchdiffeq_solvers_adjoint_events_match_torch():
    _, ours = lib_program_vs_torch("lib_torchdiffeq_ode.py", "torch", "torchdiffeq", timeout=900)
    assert len(ours) == 15
    losses = [float(line.split()[4]) for line in ours if line.startswith("odeint_adjoint step")]
    assert len(losses) == 3 and losses[-1] < losses[0], losses


def _write_through_data(m):
    """torchdiffeq's _UncheckedAssign: fill a saved buffer through ``.data`` between forward and backward."""
    x = m.ones(3, requires_grad=True)
    k = m.zeros(3, 2) * 1.0
    y = (x.unsqueeze(-1) * k).sum()
    k.data[:, 0] = 5.0
    y.backward()
    return k._version, x.grad.tolist()


@pytest.mark.xfail(strict=True, raises=RuntimeError,
                   reason="Tensor.data shares its tensor's version counter (docs/differences.md); the fix is in "
                          "tensor.py, which only the structure helper edits this round (diff in libs' report)")
def test_a_write_through_data_is_invisible_to_the_inplace_check_like_torch():
    assert _write_through_data(torchlike) == _write_through_data(torch)
