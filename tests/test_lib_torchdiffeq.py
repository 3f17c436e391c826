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
    assert len(ours) == 16
    assert any(line.startswith("dopri5 backprop") for line in ours)
    losses = [float(line.split()[4]) for line in ours if line.startswith("odeint_adjoint step")]
    assert len(losses) == 3 and losses[-1] < losses[0], losses


def _write_through_data(m):
    """torchdiffeq's _UncheckedAssign: fill the next stage of a buffer through ``.data`` after a view of its
    earlier stages was saved for backward."""
    x = m.ones(3, requires_grad=True)
    k = m.zeros(3, 2) * 1.0
    k.data[:, 0] = 2.0
    y = (x.unsqueeze(-1) * k[:, :1]).sum()
    k.data[:, 1] = 5.0
    y.backward()
    return k._version, x.grad.tolist(), k.tolist()


def test_a_write_through_data_is_invisible_to_the_inplace_check_like_torch():
    assert _write_through_data(torchlike) == _write_through_data(torch)


def test_a_write_through_detach_is_seen_by_the_inplace_check_like_torch():
    for m in (torchlike, torch):
        x = m.ones(3, requires_grad=True)
        k = m.zeros(3) * 1.0
        y = (x * k).sum()
        k.detach()[0] = 5.0
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.backward()


def _unchecked_assign_chain(m):
    """torchdiffeq's _UncheckedAssign applied to its own output: the Function returns its input as-is (a view of
    it), and the next call writes through ``.data`` of that view; autograd's version check must not see it."""
    class UncheckedAssign(m.autograd.Function):
        @staticmethod
        def forward(ctx, scratch, value, index):
            ctx.index = index
            scratch.data[index] = value
            return scratch

        @staticmethod
        def backward(ctx, grad_scratch):
            return grad_scratch, grad_scratch[ctx.index], None

    x = m.ones(3, requires_grad=True)
    k = UncheckedAssign.apply(m.zeros(3, 4) * 1.0, x * 2, (..., 0))
    saved = k[..., :1]
    y = (saved * x.unsqueeze(-1)).sum()
    k = UncheckedAssign.apply(k, x * 3, (..., 1))
    k = UncheckedAssign.apply(k, x * 4, (..., 2))
    (y + k.sum()).backward()
    return k._version, saved._version, k._is_view(), x.grad.tolist(), k.tolist()


def test_writes_through_data_of_a_functions_view_output_are_unchecked_like_torch():
    assert _unchecked_assign_chain(torchlike) == _unchecked_assign_chain(torch)
