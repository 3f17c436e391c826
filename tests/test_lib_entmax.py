"""entmax 1.3 under the drop-in runner, compared line by line with real torch: sparsemax / entmax15 (sort and
top-k forms, any dim, float16), the bisection family with a learnable alpha, their autograd Functions'
gradients (gradcheck), the Fenchel-Young losses and a small entmax15-attention classifier trained with Adam."""
from conftest import lib_program_vs_torch


def test_entmax_sparse_maps_and_losses_like_torch():
    _, ours = lib_program_vs_torch("lib_entmax.py", "entmax", timeout=600, rtol=1e-4)
    assert len(ours) == 25, ours
    assert ours[0] == "sparsemax torch.float32 [0.0, 0.0, 0.1606, 0.6144, 0.225, 0.0] [1.0, 1.0, 1.0] 11", ours[0]
    assert ours[1] == "entmax15 torch.float32 [0.0, 0.0, 0.2326, 0.5028, 0.2646, 0.0] [1.0, 1.0, 1.0] 9", ours[1]
    assert ours[11] == "grad entmax15 True [-0.4463, -0.015, 0.4613, 0.0, 0.0]", ours[11]
    assert ours[22] == "train [0.6091, 0.4626, 0.3649, 0.3007, 0.2412, 0.1844, 0.1418, 0.1037]", ours[22]
