"""Fixes from the strict OpInfo sweep of op_db[0:350] with 8 samples per dtype
(``python -m conformance --strict --max-samples 8``), each compared with real torch.

- ``div(rounding_mode='trunc')`` of float16/bfloat16 by a tensor divisor rounds the float32 quotient to the half
  type before truncating (aten's kernel computes ``trunc(a / b)`` in the half type); a one-element divisor takes
  aten's opmath scalar path (trunc of the float32 quotient);
- ``cov`` with weights computes the weights' sums and the normalization factor in the weights' dtype (float32
  aweights of a float64 input give a float32 factor) and warns when the factor is <= 0;
- ``interpolate`` of float16/bfloat16 through aten's generic upsampling kernel (linear, bicubic, trilinear, and
  bilinear with a large output) keeps its weights in the half type and nests the dims, the last innermost.
"""
import warnings

import numpy as np
import pytest
import torch

import torchlike
from conftest import same_as_torch


def _tl(t):
    return torchlike.tensor(t.float().numpy()).to(getattr(torchlike, str(t.dtype).split(".")[1]))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("shapes", [((300,), (300,)), ((3,), (3,)), ((1,), (1,)), ((60,), ()), ((60,), (1,)),
                                    ((), (60,)), ((5, 12), (12,)), ((6, 1), (1, 7)), ((4, 1, 5), (1, 5))])
def test_div_trunc_half_rounds_the_quotient_first(dtype, shapes):
    g = torch.Generator().manual_seed(0)
    sa, sb = shapes
    a = (torch.randn(sa, generator=g) * 30).to(dtype)
    b = (torch.randn(sb, generator=g) * 0.7).to(dtype)
    for other in ([b, b.item()] if b.numel() == 1 else [b]):
        theirs = torch.div(a, other, rounding_mode="trunc")
        ours = torchlike.div(_tl(a), _tl(other) if isinstance(other, torch.Tensor) else other, rounding_mode="trunc")
        assert str(ours.dtype) == str(theirs.dtype)
        assert torch.equal(torch.tensor(ours.float().numpy()), theirs.float())


@pytest.mark.parametrize("dtype, a, b", [(torch.float16, -8.4765625, -0.061004638671875),
                                         (torch.bfloat16, 8.375, 0.55859375)])
def test_div_trunc_half_sweep_values(dtype, a, b):
    # the strict sweep's samples: the float32 quotient (138.949, 14.993) rounds up to 139 / 15 in the half type
    def f(m, n):
        d = getattr(m, str(dtype).split(".")[1])
        x, y = m.full((n,), a, dtype=d), m.full((n,), b, dtype=d)
        out = m.empty(n, dtype=d)
        z = x.clone()
        z.div_(y, rounding_mode="trunc")
        return m.div(x, y, rounding_mode="trunc"), m.div(x, y[:1], rounding_mode="trunc"), \
            m.div(x, y, rounding_mode="trunc", out=out), z, m.div(x, y, rounding_mode="floor")
    for n in (1, 2, 40):
        same_as_torch(lambda m: f(m, n), grad=False)


def test_div_trunc_half_one_element_divisor_after_changing_sizes():
    # sizes that keep changing run padded programs (row buckets): a one-element divisor must still take the
    # float32 path there, a longer one the rounded path
    g = torch.Generator().manual_seed(0)
    for n in (300, 3, 1, 5, 1, 2, 1, 7, 1):
        a = (torch.randn(n, generator=g) * 30).half()
        b = (torch.randn(n, generator=g) * 0.7).half()
        a[0], b[0] = 46.21875, -0.2054443359375  # 224.97: 225 rounded first, 224 in float32
        ours = torchlike.div(_tl(a), _tl(b), rounding_mode="trunc")
        assert torch.equal(torch.tensor(ours.float().numpy()), torch.div(a, b, rounding_mode="trunc").float()), n


@pytest.mark.parametrize("xdt", [torch.float32, torch.float64, torch.float16])
@pytest.mark.parametrize("awdt", [None, torch.float32, torch.float64])
@pytest.mark.parametrize("fw", [False, True])
@pytest.mark.parametrize("correction", [0, 1, 2])
def test_cov_weights_in_their_dtype(xdt, awdt, fw, correction):
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(3, 9, generator=g, dtype=torch.float64) * 5).to(xdt).numpy()
    f = torch.randint(1, 4, (9,), generator=g).numpy() if fw else None
    a = torch.rand(9, generator=g, dtype=torch.float64).to(awdt).numpy() if awdt else None

    def fn(m, x, f, a):
        return m.cov(x, correction=correction, fweights=f, aweights=a)
    tol = {torch.float64: 1e-13, torch.float32: 1e-5, torch.float16: 1e-5}
    rt = tol[xdt] if awdt != torch.float32 else max(tol[xdt], 2e-7)  # torch's float32 sums' order
    same_as_torch(fn, x, f, a, rtol=rt, atol=0, grad_inputs={1}, grad_rtol=max(rt, 1e-6), grad_atol=0)


def test_cov_float32_aweights_of_float64_input_sweep_sample():
    # the strict sweep's grad sample 6: the normalization factor is float32 in torch
    same_as_torch(lambda m: m.cov(m.tensor([-4.8270, -7.5824], dtype=m.float64, requires_grad=True),
                                  correction=1, aweights=m.tensor([0.2598, 0.3666])), rtol=0, atol=0,
                  grad_rtol=0, grad_atol=0)


@pytest.mark.parametrize("awdt", [None, torch.float16, torch.bfloat16, torch.float32, torch.float64])
@pytest.mark.parametrize("fw", [False, True])
def test_cov_integer_input_takes_the_aweights_dtype(awdt, fw):
    x = np.array([[1, 5, 2, 7], [3, 1, 4, -2]])
    f = np.array([1, 2, 1, 3]) if fw else None
    a = torch.tensor([0.5, 1.0, 2.0, 0.25], dtype=awdt).float().numpy() if awdt else None

    def fn(m, x, f, a):
        return m.cov(x, fweights=f, aweights=None if a is None else a.to(getattr(m, str(awdt).split(".")[1])))
    same_as_torch(fn, x, f, a, grad=False)


@pytest.mark.parametrize("kw", [dict(correction=2), dict(correction=1), dict(correction=3, fweights=[1, 2]),
                                dict(correction=1, aweights=[1., 0.]), dict(correction=1, aweights=[1., 1.])])
def test_cov_warns_when_dof_not_positive(kw):
    res = {}
    for m in (torch, torchlike):
        args = {k: (m.tensor(v) if isinstance(v, list) else v) for k, v in kw.items()}
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = m.cov(m.tensor([1., 2.]), **args)
        res[m] = (np.asarray(r.numpy()).tolist(), [(x.category, str(x.message)) for x in w])
    assert res[torch][1] == res[torchlike][1]
    np.testing.assert_array_equal(res[torch][0], res[torchlike][0])


def _interp_mismatches(dtype, mode, x_shape, size, align_corners, channels_last=False):
    g = torch.Generator().manual_seed(sum(x_shape) + sum(size))
    x = (torch.randn(x_shape, generator=g) * 3).to(dtype)
    if channels_last:
        x = x.contiguous(memory_format=torch.channels_last)
    theirs = torch.nn.functional.interpolate(x, size=size, mode=mode, align_corners=align_corners)
    xl = _tl(x)
    if channels_last:
        xl = xl.contiguous(memory_format=torchlike.channels_last)
    ours = torchlike.nn.functional.interpolate(xl, size=size, mode=mode, align_corners=align_corners)
    assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)
    return int((torch.tensor(ours.float().numpy()) != theirs.float()).sum()), theirs.numel()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("align_corners", [True, False])
@pytest.mark.parametrize("mode, x_shape, size", [
    ("linear", (2, 3, 4), (7,)), ("linear", (2, 3, 9), (4,)), ("bicubic", (2, 3, 4, 5), (5, 6)),
    ("bicubic", (2, 3, 7, 4), (3, 9)), ("trilinear", (2, 3, 4, 3, 5), (5, 4, 6)),
    ("trilinear", (1, 2, 4, 4, 4), (6, 6, 6)), ("bilinear", (1, 2, 5, 6), (70, 71))])
def test_interpolate_half_generic_kernel_weights_in_half(dtype, mode, x_shape, size, align_corners):
    # aten's generic upsampling kernel stores its weights in the half type and nests the dims (the last one
    # innermost) in float: the float weights gave thousands of one-ulp differences; with them rounded
    # as aten's and the last dim first, an element can still differ by the order of two float additions
    bad, n = _interp_mismatches(dtype, mode, x_shape, size, align_corners)
    assert bad <= max(2, n // 4000), (bad, n)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("case", [((2, 3, 4, 5), (5, 6), False), ((2, 5, 4, 5), (7, 9), True)])
def test_interpolate_half_bilinear_channels_last_kernel_keeps_float_weights(dtype, case):
    # bilinear with a small output (H + W <= 128) or a channels-last input with C > 3 runs aten's channels-last
    # kernel, whose weights stay float (a large channels-last output still differs on ~0.1% of the elements:
    # that kernel sums x00 * w00 + ... + x11 * w11 with the weights' products, not two separable passes)
    x_shape, size, cl = case
    for ac in (True, False):
        bad, n = _interp_mismatches(dtype, "bilinear", x_shape, size, ac, channels_last=cl)
        assert bad <= max(2, n // 4000), (bad, n)
