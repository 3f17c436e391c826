"""torchkbnufft 1.5.2 under the drop-in runner, compared line by line with real torch: Kaiser-Bessel NUFFT of a
seeded complex image on a radial trajectory (table interpolation and sparse COO interpolation matrices), the
adjoint, Pipe density compensation, the Toeplitz normal operator, multi-coil sensitivity maps with a batch of
trajectories, (..., 2) real inputs, and gradient-descent reconstruction through complex autograd."""
from conftest import lib_program_vs_torch


def test_torchkbnufft_like_torch():
    _, ours = lib_program_vs_torch("lib_torchkbnufft.py", "torchkbnufft", timeout=600, rtol=1e-4)
    assert len(ours) == 19, ours
    assert ours[2] == "kdata (1, 1, 128) torch.complex64 [1502.384, 55.4266, 9.30352, 0.17919]", ours[2]
    assert ours[7] == "spmat [(128, 576), (128, 576)] torch.sparse_coo", ours[7]
    assert ours[8] == "spmat_vs_table 0.051 55.4249", ours[8]  # (the sparse path interpolates without the table)
    assert ours[11].startswith("toeplitz ") and ours[11].endswith(" 1.0"), ours[11]
    assert ours[14] == "real_input (1, 1, 128, 2) 1.0", ours[14]
    losses = [float(line.split()[-1]) for line in ours if line.startswith("recon ")]
    assert len(losses) == 3 and losses[0] > losses[1] > losses[2], losses
