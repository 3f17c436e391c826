"""ptwt 1.0.1 (PyTorch wavelet toolbox, with PyWavelets 1.9.0 for the filters) under the drop-in runner, compared
line by line with real torch: 1-D fast wavelet transforms by convolution with four wavelets and padding modes,
2-D and 3-D transforms, the separable 2-D transform, the sparse-matrix transforms (MatrixWavedec with
QR-orthogonalised boundary filters, MatrixWavedec2), the stationary transform, 1-D and 2-D wavelet packets, the
continuous transform (Morlet and complex Morlet) and gradients through a decomposition.

Found: ptwt's boundary orthogonalisation iterates a sparse COO tensor row by row (``for row in q.T.to_sparse()``)
and adds sparse tensors in place (``result += addition_matrix``); torchlike had neither ``Tensor.__iter__`` /
``unbind`` for sparse tensors nor in-place sparse + sparse, and its ``select`` on a sparse tensor kept the input's
coalesced flag where torch marks the piece coalesced only when it has fewer than two entries. Focused tests in
tests/test_sparse_functions.py."""
from conftest import lib_program_vs_torch


def test_ptwt_transforms_like_torch():
    t, ours = lib_program_vs_torch("lib_ptwt.py", "ptwt", "pywt", timeout=600)
    assert len(ours) == 15, ours
    assert ours == t
    assert all(line.endswith(" 0.0") for line in ours[:10]), ours[:10]  # perfect reconstructions
    assert ours[7].startswith("matrix wavedec [([2, 8], "), ours[7]
