"""Half-precision conv1d/conv2d weight gradients on CPU against torch, bit for bit: where torch does not hand
the half type to oneDNN it runs ``slow_conv2d``, whose weight gradient is added sample by sample into a buffer
of the half type (each sample's float32 sum rounded into the running total); a one-rounding gradient was up to
2% off torch's for a batch of 12 (the SimCLR program's bf16 autocast step diverged from its second step).

Open: a ``jax.custom_vjp`` that accumulates the weight gradient per sample gives torch's bits, but a custom_vjp
cannot be differentiated in forward mode (``torch.func.jvp``/``forward_ad`` of a half conv then fails), so it
is not in; the weight-gradient cases are expected to fail until a rule that keeps forward mode lands."""
import pytest

import torchlike

torch = pytest.importorskip("torch")


def _grads(lib, dtype, n, stride, padding, bias, autocast):
    lib.manual_seed(0)
    x = lib.rand(12, 3, *([9] * n))
    conv = (lib.nn.Conv1d if n == 1 else lib.nn.Conv2d)(3, 5, 3, stride=stride, padding=padding, bias=bias)
    if autocast:
        with lib.autocast("cpu", dtype=getattr(lib, dtype)):
            out = conv(x)
    else:
        conv = conv.to(getattr(lib, dtype))
        x = x.to(getattr(lib, dtype)).requires_grad_()
        out = conv(x)
    go = lib.linspace(-1, 1, out.numel()).view(out.shape)
    (out.float() * go).sum().backward()
    return (out.detach().float(), conv.weight.grad.float(), None if conv.bias is None else conv.bias.grad.float(),
            None if autocast else x.grad.float())


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("n,stride,padding,bias", [(2, 1, 1, True), (2, 2, 0, False), (1, 1, 2, True), (1, 2, 1, True)])
@pytest.mark.parametrize("autocast", [True, False])
def test_half_conv_weight_grad_is_torchs(dtype, n, stride, padding, bias, autocast):
    if autocast and dtype == "float16":
        pytest.skip("CPU autocast runs float16 convolutions like bfloat16 ones: covered by the plain float16 case")
    exp = _grads(torch, dtype, n, stride, padding, bias, autocast)
    ours = _grads(torchlike, dtype, n, stride, padding, bias, autocast)
    # (values: float32 sums in XLA's order can round a near-tie to the neighbour, docs/differences.md)
    torch.testing.assert_close(torch.from_numpy(ours[0].numpy()), exp[0], rtol=1e-2, atol=1e-3)
    if bias:
        torch.testing.assert_close(torch.from_numpy(ours[2].numpy()), exp[2], rtol=1e-2, atol=1e-2)
    if not autocast:
        torch.testing.assert_close(torch.from_numpy(ours[3].numpy()), exp[3], rtol=2e-2, atol=2e-2)
    scale = exp[1].abs().max().item()
    torch.testing.assert_close(torch.from_numpy(ours[1].numpy()), exp[1], rtol=5e-2, atol=5e-2 * scale)
    if not torch.equal(torch.from_numpy(ours[1].numpy()), exp[1]):
        pytest.xfail("torch's per-sample half-type accumulation of the weight gradient is not reproduced (see the "
                     "module docstring); within bf16/f16 tolerance")
