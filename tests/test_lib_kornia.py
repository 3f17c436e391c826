"""kornia (color, filters, geometry warps, losses/metrics, seeded augmentation pipelines and their inverse, a
gradient through a warp) under the drop-in runner, compared line by line with the same program under real torch;
and the torch-internal names kornia imports (``torch.torch``, ``torch._subclasses.fake_tensor.is_fake``,
``torch.fx.experimental.proxy_tensor.get_proxy_mode``, ``torch.autograd.forward_ad.unpack_dual``,
``torch._assert_async``, ``torch._shape_as_tensor``) checked against torch.
"""
import torch

import torchlike
from conftest import lib_program_vs_torch, raises_like_torch, same_as_torch


def test_kornia_ops_and_augmentations_match_torch():
    _, ours = lib_program_vs_torch("lib_kornia_ops.py", "torch", "kornia", timeout=900)
    assert len(ours) == 22
    assert "hsv roundtrip below 1e-5 True" in ours


def test_torch_torch_is_the_module():
    assert torch.torch is torch and torchlike.torch is torchlike


def test_no_tensor_is_fake_and_no_proxy_mode_is_active():
    from torch._subclasses.fake_tensor import is_fake as t_is_fake
    from torch.fx.experimental.proxy_tensor import get_proxy_mode as t_mode

    from torchlike._subclasses.fake_tensor import FakeTensor, is_fake
    from torchlike.fx.experimental.proxy_tensor import get_proxy_mode
    for x in (1.0, None):
        assert is_fake(x) == t_is_fake(x)
    assert is_fake(torchlike.ones(2)) == t_is_fake(torch.ones(2)) is False
    assert get_proxy_mode() is t_mode() is None
    assert issubclass(FakeTensor, torchlike.Tensor)
    assert FakeTensor.__module__ == torch._subclasses.fake_tensor.FakeTensor.__module__


def test_unpack_dual_outside_a_dual_level_like_torch():
    for m in (torch, torchlike):
        x = m.ones(3)
        r = m.autograd.forward_ad.unpack_dual(x)
        assert r.primal is x and r.tangent is None and r._fields == ("primal", "tangent")


def test_assert_async_and_shape_as_tensor_like_torch():
    import numpy as np
    same_as_torch(lambda m, x: m._shape_as_tensor(x), np.ones((2, 3, 4), np.float32), grad=False)
    for m in (torch, torchlike):
        assert m._assert_async(m.tensor(True)) is None and m._assert_async(m.tensor([2.5])) is None
    raises_like_torch(lambda m: m._assert_async(m.tensor(False)))
    raises_like_torch(lambda m: m._assert_async(m.tensor(0.0), "my message"))
    raises_like_torch(lambda m: m._assert_async(m.tensor([1, 1])))
    raises_like_torch(lambda m: m._assert_async(m.tensor([])))
