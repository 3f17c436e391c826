"""kymatio 0.3.0's torch frontends under the drop-in runner, compared line by line with real torch: 1-D wavelet
scattering (orders 0-2 separated through meta(), max_order=1 with a (Q1, Q2) pair, out_type='list' without
averaging), 2-D scattering (orders 1 and 2), gradients through a 1-D scattering, and a 2-D scattering inside an
nn.Module (its filters registered as buffers) trained a few Adam steps.

Found: nothing to fix (the first 1-D coefficient sum prints 51.5001 under torch and 51.5 here: float32 summation
order over FFT outputs, within the comparison's tolerance). Not covered: kymatio.torch itself and the 3-D
harmonic scattering, whose filter bank imports scipy.special.sph_harm, removed in scipy 1.17 (it fails under torch
too); the program imports the 1-D and 2-D frontends from their modules."""
from conftest import lib_program_vs_torch


def test_kymatio_scattering_like_torch():
    t, ours = lib_program_vs_torch("lib_kymatio.py", "kymatio", timeout=600)
    assert len(ours) == 9, ours
    assert ours[1:] == t[1:]
    assert ours[0].startswith("1d [[2, 29, 16], 51.5"), ours[0]
    assert ours[4] == "1d list 8 [[128], [128], [128], [128]] ['coef', 'j', 'n']", ours[4]
    assert ours[-1].startswith("train [") and ours[-1].endswith("2 ['scat.tensor0', 'scat.tensor1', 'scat.tensor2']")
