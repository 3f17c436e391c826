"""cooper-optim 1.0.1 under the drop-in runner, compared line by line with real torch: a rate-constrained logistic
regression (DenseMultiplier, simultaneous GDA), a unit-norm equality under the Augmented Lagrangian with a
multiplicative penalty updater and alternating updates, per-sample constraints with an IndexedMultiplier (a sparse
embedding gradient) and ExtraSGD extragradient steps, the nuPI dual optimizer, an unconstrained roll and the CMP's
state_dict."""
from conftest import lib_program_vs_torch


def test_cooper_like_torch():
    _, ours = lib_program_vs_torch("lib_cooper.py", "cooper", timeout=600, rtol=1e-4)
    assert len(ours) == 15, ours
    assert ours[3].startswith("rate multipliers >= 0 True"), ours[3]
    assert ours[8].startswith("indexed 3 "), ours[8]
    assert ours[14].startswith("state_dict ['multipliers', 'penalty_coefficients']"), ours[14]
