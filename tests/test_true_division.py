"""True division is torch's, bit for bit: XLA's simplifier rewrites ``a / b`` for a broadcast or constant ``b``
into ``a * (1 / b)`` (a different rounding in about a third of float32 elements); torch's kernels divide.
Checked on the device path (above HOST_MAX elements) for ``div`` itself and for the kernels that divide by a
count or a norm: ``mean``, ``avg_pool``, ``F.normalize``, the losses' ``'mean'`` reduction, ``smooth_l1``'s beta,
``embedding_bag``'s mean, ``addcdiv``, ``adaptive_avg_pool``,
``multi_margin_loss``'s per-row / C, ``rms_norm``'s mean square; and where torch multiplies (``number / tensor``, ``addcmul``'s value) we
multiply in torch's order."""
import numpy as np
import pytest

import torchlike

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")


@pytest.mark.parametrize("how", ["number", "row", "expanded", "trunc", "floor", "grad", "compiled"])
def test_device_division_by_a_broadcast_divisor_is_torchs_quotient(how):
    """On the device too (XLA would multiply by the divisor's reciprocal, off by one ulp in a third of the
    elements): a number, a row, an expanded view, the rounding modes, the gradient and a compiled call."""
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((256, 300)) * 10).astype(np.float32)  # above HOST_MAX: the device path
    row = (rng.random(300) + 0.1).astype(np.float32)

    def f(m, a, r):
        if how == "number":
            return a / 3.7
        if how == "row":
            return a / r
        if how == "expanded":
            return a / r.expand(256, 300)
        if how in ("trunc", "floor"):
            return m.div(a * 100, r, rounding_mode=how)
        return a / r

    ours_x, ours_r = torchlike.tensor(x, requires_grad=how == "grad"), torchlike.tensor(row)
    ref_x, ref_r = torch.tensor(x, requires_grad=how == "grad"), torch.tensor(row)
    if how == "compiled":
        ours = torchlike.compile(lambda a, r: f(torchlike, a, r))(ours_x, ours_r)
    else:
        ours = f(torchlike, ours_x, ours_r)
    ref = f(torch, ref_x, ref_r)
    np.testing.assert_array_equal(ours.detach().numpy(), ref.detach().numpy())
    if how == "grad":  # d(a / r)/da = g / r: torch's DivBackward0 divides too
        g = rng.standard_normal((256, 300)).astype(np.float32)
        ours.backward(torchlike.tensor(g))
        ref.backward(torch.tensor(g))
        np.testing.assert_array_equal(ours_x.grad.numpy(), ref_x.grad.numpy())


def _ints(shape, seed):  # integer-valued floats: the sums are exact, so only the division can differ
    return np.random.default_rng(seed).integers(-50, 50, shape).astype(np.float32)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", ["mean_dim", "mean_all", "mean_grad", "avg_pool1d", "avg_pool2d_no_pad_count",
                                  "normalize", "mse_mean", "l1_mean", "compiled_mean", "smooth_l1_beta",
                                  "embedding_bag_mean", "addcdiv", "addcdiv_value", "addcmul_value", "rdiv",
                                  "rdiv_int", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
                                  "multi_margin_none", "rms_norm"])
def test_kernels_dividing_by_a_count_or_norm_are_torchs_quotient(case, dtype):
    x = _ints((30000, 7), 2).astype(dtype)
    y = _ints((30000, 7), 3).astype(dtype)

    def f(m, a, b):
        F = m.nn.functional
        if case == "mean_dim":
            return a.mean(1)
        if case == "mean_all":
            return a[:5].mean()
        if case == "avg_pool1d":
            return F.avg_pool1d(a[None], 3)
        if case == "avg_pool2d_no_pad_count":
            return F.avg_pool2d(a[None, None], (3, 2), padding=1, count_include_pad=False)
        if case == "normalize":
            return F.normalize(a, dim=1)
        if case == "mse_mean":
            return F.mse_loss(a[:3, :1], b[:3, :1])
        if case == "l1_mean":
            return F.l1_loss(a[:3, 0], b[:3, 0])
        if case == "smooth_l1_beta":  # 0.5 * z * z / beta
            return F.smooth_l1_loss(a, b / 4, beta=3.0, reduction="none")
        if case == "embedding_bag_mean":  # each bag's sum / its count
            return F.embedding_bag((b.abs() % 30000).long()[:, :3], a, mode="mean")
        if case == "addcdiv":  # torch's kernel: self + value * t1 / t2, a true division by the broadcast row
            return m.addcdiv(a, b, a[0] + 100)
        if case == "addcdiv_value":  # (value * t1) / t2, left to right
            return m.addcdiv(a, b, a[0] + 100, value=0.3)
        if case == "addcmul_value":  # (value * t1) * t2, left to right
            return m.addcmul(a, b, a[0] + 100, value=0.3)
        if case == "rdiv":  # torch: number / tensor is tensor.reciprocal() * number, not a division
            return 3.7 / (a + 100)
        if case == "rdiv_int":
            return 3 / (a + 100).int()
        if case == "adaptive_avg_pool1d":  # window sum / its length
            return F.adaptive_avg_pool1d(a.T[None], 1000)
        if case == "adaptive_avg_pool2d":  # sum / kh / kw, in turn (not / (kh * kw))
            return F.adaptive_avg_pool2d(a.reshape(3, 100, 700), (7, 9))
        if case == "adaptive_avg_pool3d":  # sum / kT / kH / kW
            return F.adaptive_avg_pool3d(a.reshape(3, 10, 100, 70), (3, 7, 9))
        if case == "multi_margin_none":  # each row's hinge sum / C
            return F.multi_margin_loss(a, (b.abs() % 7).long()[:, 0], reduction="none")
        if case == "rms_norm":  # mean of squares: sum / n
            return F.rms_norm(a, (7,))
        return a.mean(1)

    ours_a = torchlike.tensor(x, requires_grad=case == "mean_grad")
    ref_a = torch.tensor(x, requires_grad=case == "mean_grad")
    if case == "compiled_mean":
        ours = torchlike.compile(lambda a, b: f(torchlike, a, b))(ours_a, torchlike.tensor(y))
    else:
        ours = f(torchlike, ours_a, torchlike.tensor(y))
    ref = f(torch, ref_a, torch.tensor(y))
    np.testing.assert_array_equal(ours.detach().numpy(), ref.detach().numpy())
    assert str(ours.dtype) == str(ref.dtype)
    if case == "mean_grad":  # MeanBackward1: grad / n
        ours.sum().backward()
        ref.sum().backward()
        np.testing.assert_array_equal(ours_a.grad.numpy(), ref_a.grad.numpy())
