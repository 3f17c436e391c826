"""torch.ao.quantization.fuse_modules / fuse_modules_qat and torch.ao.nn.intrinsic, compared with torch:
tests/programs/ao_fuse_modules.py runs once with real torch and once under the runner (the fused model's
structure, outputs equal to the unfused model's, hooks moved, state-dict keys, QAT containers, errors)."""
import os

import numpy as np
import pytest
from conftest import run_program

torch = pytest.importorskip("torch", reason="the expected values come from torch")

import torchlike  # noqa: E402

PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "ao_fuse_modules.py")


def test_fuse_modules_program_prints_what_torch_prints():
    expected = run_program([PROGRAM], runner=False, timeout=300)
    ours = run_program([PROGRAM], runner=True, timeout=300)
    assert ours == expected
    assert "(2, 2) 0.0" in expected and any(line.startswith("ConvBnReLU2d LinearBn1d 3") for line in expected)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_eval_fusion_folds_batchnorm_into_the_same_weights_as_torch(n):
    rng = np.random.default_rng(n)
    weight = rng.standard_normal((4, 3) + (3,) * n).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    mods = []
    for L in (torch, torchlike):
        conv = getattr(L.nn, f"Conv{n}d")(3, 4, 3)
        bn = getattr(L.nn, f"BatchNorm{n}d")(4)
        conv.load_state_dict({"weight": L.tensor(weight), "bias": L.tensor(bias)})
        bn.running_mean.copy_(L.tensor([0.5, -1.0, 2.0, 0.0]))
        bn.running_var.copy_(L.tensor([2.0, 0.5, 1.0, 3.0]))
        bn.weight.data.copy_(L.tensor([1.5, -0.5, 1.0, 2.0]))
        seq = L.nn.Sequential(conv, bn, L.nn.ReLU()).eval()
        mods.append(L.ao.quantization.fuse_modules(seq, ["0", "1", "2"]))
    (theirs, ours) = mods
    assert type(ours[0]).__name__ == type(theirs[0]).__name__ == f"ConvReLU{n}d"
    for (k1, v1), (k2, v2) in zip(theirs.state_dict().items(), ours.state_dict().items()):
        assert k1 == k2
        np.testing.assert_allclose(v2.numpy(), v1.numpy(), rtol=1e-6, atol=1e-7)
