"""Python numbers an op converts into the tensor's dtype (F.pad's value, scatter's value, add/sub's alpha,
addcmul/addcdiv's value, threshold's threshold and value, hardtanh's bounds) go through c10's checked
conversion as in torch: a number out of range raises "value cannot be converted to type X without overflow"
(they wrapped, or leaked JAX's OverflowError), while what torch takes is kept (a negative integer alpha of a
uint8 add wraps; half addcmul converts its value to float; F.pad converts its value as a float and checks it
only where it pads). Found running the Annotated Transformer's collate (``pad(..., value=pad_id)``)."""
import pytest

torch = pytest.importorskip("torch", reason="the expected behaviour comes from torch")
import torchlike  # noqa: E402

CALLS = {
    "pad int8 300": lambda t: t.nn.functional.pad(t.tensor([1, 2], dtype=t.int8), (1, 1), value=300),
    "pad uint8 -1": lambda t: t.nn.functional.pad(t.tensor([1, 2], dtype=t.uint8), (1, 1), value=-1),
    "pad half 1e6": lambda t: t.nn.functional.pad(t.ones(2, dtype=t.float16), (1, 1), value=1e6),
    "pad int8 nan": lambda t: t.nn.functional.pad(t.tensor([1, 2], dtype=t.int8), (1, 1), value=float("nan")),
    "pad int64 2**70": lambda t: t.nn.functional.pad(t.tensor([1]), (1, 1), value=2 ** 70),
    "pad complex value": lambda t: t.nn.functional.pad(t.ones(2), (1, 1), value=1j),
    "pad str value": lambda t: t.nn.functional.pad(t.ones(2), (0, 0), value="a"),
    "pad no padding 300": lambda t: t.nn.functional.pad(t.tensor([1, 2], dtype=t.int8), (0, 0), value=300),
    "pad crop 300": lambda t: t.nn.functional.pad(t.tensor([1, 2], dtype=t.int8), (-1, 0), value=300),
    "pad tensor value": lambda t: t.nn.functional.pad(t.tensor([1, 2], dtype=t.int8), (1, 0), value=t.tensor(2.)),
    "ConstantPad1d int8 300": lambda t: t.nn.ConstantPad1d(1, 300)(t.ones(1, 2, dtype=t.int8)),
    "scatter value int8 300": lambda t: t.tensor([1, 2], dtype=t.int8).scatter(0, t.tensor([0]), 300),
    "scatter_ value half 1e6": lambda t: t.ones(2, dtype=t.float16).scatter_(0, t.tensor([0]), 1e6),
    "scatter value complex": lambda t: t.ones(2).scatter(0, t.tensor([0]), 1j),
    "scatter value 2.5 int8": lambda t: t.tensor([1, 2], dtype=t.int8).scatter(0, t.tensor([0]), 2.5),
    "add alpha int8 300": lambda t: t.tensor([1, 2], dtype=t.int8).add(t.tensor([1, 1], dtype=t.int8), alpha=300),
    "sub alpha float 1e40": lambda t: t.ones(2).sub(t.ones(2), alpha=1e40),
    "add alpha half 1e5": lambda t: t.ones(2, dtype=t.float16).add(t.ones(2, dtype=t.float16), alpha=1e5),
    "add_ alpha uint8 -1": lambda t: t.tensor([1, 2], dtype=t.uint8).add_(1, alpha=-1),
    "sub alpha uint8 -2": lambda t: t.tensor([1, 2], dtype=t.uint8).sub(t.tensor([1, 1], dtype=t.uint8), alpha=-2),
    "add alpha True float": lambda t: t.ones(2).add(t.ones(2), alpha=True),
    "add alpha True bool": lambda t: t.ones(2, dtype=t.bool).add(t.ones(2, dtype=t.bool), alpha=True),
    "addcmul value int8 300": lambda t: t.tensor([1, 2], dtype=t.int8).addcmul(
        t.tensor([1, 2], dtype=t.int8), t.tensor([1, 2], dtype=t.int8), value=300),
    "addcmul value half 1e5": lambda t: t.ones(2, dtype=t.float16).addcmul(
        t.ones(2, dtype=t.float16), t.ones(2, dtype=t.float16), value=1e5),
    "addcdiv value float 1e40": lambda t: t.ones(2).addcdiv(t.ones(2), t.ones(2), value=1e40),
    "threshold int8 300": lambda t: t.nn.functional.threshold(t.tensor([1, 2], dtype=t.int8), 300, 1),
    "threshold value int8 300": lambda t: t.nn.functional.threshold(t.tensor([1, 2], dtype=t.int8), 1, 300),
    "hardtanh int8 -300": lambda t: t.nn.functional.hardtanh(t.tensor([1, 2], dtype=t.int8), -300, 1),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_scalar_argument_conversion_like_torch(call):
    def run(t):
        try:
            r = CALLS[call](t)
        except Exception as e:  # (the outcome compared is the exception's type and text)
            return type(e).__name__, str(e)
        return str(r.dtype).replace("torchlike", "torch"), r.tolist()
    assert run(torchlike) == run(torch)


@pytest.mark.parametrize("call", [
    lambda L: L.clamp(L.arange(5.), 0, L.tensor(3.)),  # PyTorch-VAE's BetaVAE: clamp(x, 0, self.C_max.data[0])
    lambda L: L.clamp(L.arange(5.), L.tensor(1), 3.5),
    lambda L: L.arange(5, dtype=L.int32).clamp(1, L.tensor(3, dtype=L.float64)),  # a double Number: float32
    lambda L: L.arange(5, dtype=L.int32).clip(L.tensor(1), 3),
    lambda L: L.arange(5.).clamp_(L.tensor(1.), 3),
    lambda L: L.clamp(L.arange(5.), 1, L.tensor(3.), out=L.empty(5)),
], ids=["max_0dim", "min_0dim", "int_input_double_bound", "clip", "inplace", "out"])
def test_clamp_takes_a_0dim_tensor_beside_a_number_like_torch(call):
    """One Number bound and one 0-dim Tensor bound: torch's parser reads the tensor as a Number (the Number
    overload, its promotion); torchlike raised the invalid-combination TypeError."""
    from conftest import same_as_torch
    same_as_torch(call, grad=False)


@pytest.mark.parametrize("call", [
    lambda L: L.clamp(L.arange(5.), L.tensor([1., 2.]), 3),
    lambda L: L.clamp(L.arange(5.), 1, L.tensor(3., requires_grad=True)),
], ids=["1d_tensor", "requires_grad"])
def test_clamp_mixed_bounds_torch_rejects(call):
    from conftest import raises_like_torch
    raises_like_torch(call)
