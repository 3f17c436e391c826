"""neuraloperator 2.0.0 (``neuralop``) under the drop-in runner, compared line by line with real torch: spectral
convolutions (complex weights held as tensorly-torch factorized tensors, torch.fft.rfftn/irfftn, up-sampling,
3-D), LpLoss/H1Loss, FNO with domain padding evaluated at a finer resolution, Tucker and CP TFNOs, a UNO, the
library's Trainer with a DefaultDataProcessor and UnitGaussianNormalizers, and save_checkpoint/from_checkpoint
on a synthetic Darcy-like problem."""
from conftest import lib_program_vs_torch


def test_neuralop_fno_tfno_uno_trainer_like_torch():
    _, ours = lib_program_vs_torch("lib_neuralop.py", "neuralop", "tltorch", timeout=600, rtol=1e-3)
    assert len(ours) == 23, ours
    assert ours[1] == "spectral weight DenseTensor (3, 4, 4, 3) torch.complex64 65.64", ours[1]
    assert ours[4].startswith("spectral grads 2 [torch.float32, torch.complex64]"), ours[4]
    assert ours[9].startswith("fno eval") and "fine (8, 1, 32, 32)" in ours[9], ours[9]
    assert ours[18] == "uno params 9337 losses [22.505, 22.1984, 21.8944]", ours[18]
    assert ours[-1] == "checkpoint FNO True 25 ['fno_blocks.convs.0.bias', 'fno_blocks.convs.0.weight.tensor']", ours[-1]
