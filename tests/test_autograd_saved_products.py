"""Ops linear in each tensor argument (mul, mm, matmul, bmm, mv, dot, outer, einsum, tensordot, kron) save an input
only for another input's gradient, as torch's formulas do: a constant times a slice of a buffer that is written in
place afterwards (torchode's Runge-Kutta stage buffer, ``k[i] = f(einsum(a, k[:i]))``) backpropagates like torch,
while a product of two tensors that both require grad still raises torch's version-counter error."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the expected values come from torch")

import torchlike  # noqa: E402

OPS = {
    "mul": lambda L, c, s: c[:, None, None] * s,
    "mm": lambda L, c, s: c[None] @ s[:, :, 0],
    "matmul": lambda L, c, s: L.matmul(c, s[:, :, 0]),
    "bmm": lambda L, c, s: L.bmm(c[None, None].expand(2, 1, 2), s.permute(2, 0, 1)),
    "mv": lambda L, c, s: L.mv(s[:, :, 1].T, c),
    "dot": lambda L, c, s: L.dot(c, s[:, 0, 0]),
    "outer": lambda L, c, s: L.outer(c, s[:, 1, 1]),
    "einsum": lambda L, c, s: L.einsum("j,jbf->bf", c, s),
    "tensordot": lambda L, c, s: L.tensordot(c, s, dims=1),
    "kron": lambda L, c, s: L.kron(c, s[:, 0, 0]),
    "div": lambda L, c, s: s / (c[:, None, None] + 1),  # (the dividend is read only for the divisor's gradient)
    "addcmul": lambda L, c, s: L.addcmul(s, s, c[:, None, None], value=0.5),
    "addcdiv": lambda L, c, s: L.addcdiv(s, s, c[:, None, None] + 1, value=0.5),
}


def run(L, op, both):
    x = L.ones(3, 4, 2, requires_grad=True)
    k = x * 2
    c = L.tensor([0.5, 0.25], requires_grad=both)
    y = OPS[op](L, c, k[:2])
    k[2] = 7.0  # an in-place write to the buffer the product read a slice of
    y.sum().backward()
    return x.grad.numpy(), None if c.grad is None else c.grad.numpy()


@pytest.mark.parametrize("op", sorted(OPS))
def test_constant_times_a_slice_written_afterwards_backpropagates(op):
    (gx, gc), (tx, tc) = run(torchlike, op, False), run(torch, op, False)
    np.testing.assert_allclose(gx, tx, rtol=1e-6)
    assert gc is None and tc is None


@pytest.mark.parametrize("op", sorted(set(OPS) - {"kron"}))  # (torch's kron reshapes a strided slice to a copy)
def test_both_requiring_grad_still_raises_torchs_error(op):
    with pytest.raises(RuntimeError) as theirs:
        run(torch, op, True)
    with pytest.raises(RuntimeError) as ours:
        run(torchlike, op, True)
    assert "modified by an inplace operation" in str(theirs.value)
    assert str(ours.value).split(":")[0] == str(theirs.value).split(":")[0]


def test_inference_tensor_saved_by_a_product_still_raises():
    def run_inf(L):
        with L.inference_mode():
            c = L.ones(3)
        w = L.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError) as err:
            c * w
        return str(err.value)
    assert run_inf(torchlike) == run_inf(torch)
